#!/usr/bin/env bash
# ctest-summary.sh BUILD [-j N] [--exclude REGEX] - runs the CTest suite of BUILD (`make test`
# and scripts/test-sanitizers.sh do), then says what ran: the tests that passed, and those
# that skipped grouped by cause, each cause the line the test printed when it skipped. It
# fails where a test failed, where a test file under tests/ was not run at all (a build that
# lost a test is not a green suite), and where a test skipped for a cause this machine does
# not have: a skip is expected only where a rule below matches the test and its line, and
# the rule's probe says the machine lacks what the test needs (a GPU test without a GPU, the
# sqlite3 shell missing, a Slurm that cannot start). So fewer tests than this machine can
# run is a failure, with the GPU tests excepted where there is no GPU. --exclude leaves tests
# out on purpose (ctest -E), as the sanitizer run does with the NVRTC compile test.
set -uo pipefail
build=${1:?usage: ctest-summary.sh BUILD [-j N] [--exclude REGEX]}
shift
jobs=$(nproc)
exclude=
while [ $# -gt 0 ]; do
  case $1 in
    -j) jobs=$2; shift 2 ;;
    --exclude) exclude=$2; shift 2 ;;
    *) echo "ctest-summary.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$build" && pwd)
junit=$build/ctest-junit.xml

# ---- what the machine has: each probe succeeds where a test's need is met ----------------
have_gpu() { command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; }
have_nvrtc() { ldconfig -p 2>/dev/null | grep -q 'libnvrtc\.so' || ls /usr/local/cuda/lib64/libnvrtc.so* >/dev/null 2>&1; }
plain_build() { ! grep -qE '^MMT_SANITIZE:[A-Z]*=.+' "$build/CMakeCache.txt" 2>/dev/null; }
have_blas_lib() { [ -e "$build/blas/libmmtuned_blas.so" ]; }
have_blas_test() { [ -x /usr/lib/x86_64-linux-gnu/blas/xblat3s ] || ls /usr/lib/*/blas*/xblat3s >/dev/null 2>&1; }
have_numpy() { /usr/bin/python3 -c 'import numpy' 2>/dev/null; }
have_pip_numpy() { "$src/.venv-numpy/bin/python" -c 'import numpy' 2>/dev/null; }
have_venv() { d=$(mktemp -d) && /usr/bin/python3 -m venv "$d/v" >/dev/null 2>&1 && "$d/v/bin/python" -c 'import setuptools' 2>/dev/null; r=$?; rm -rf "$d"; return $r; }
have_torch_gpu() { python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; }
have_sqlite3() { command -v sqlite3 >/dev/null; }
have_python3() { command -v python3 >/dev/null; }
have_script() { command -v script >/dev/null; }
have_chromium() { command -v chromium-headless-shell >/dev/null || command -v chromium >/dev/null; }
can_slurm() { [ "$(id -u)" = 0 ] && command -v slurmctld >/dev/null && command -v munged >/dev/null; }
unknowable() { false; } # the machine may lack it in ways no probe here can tell (a daemon that will not start)

# ---- the skips that may happen: tests (ERE) :: their skip line (ERE) :: the probe -----------
rules='
^(test_gpu_.*|test_blas_offload|cli_gpu_faulty)$ :: . :: have_gpu
^(test_cuda_compile|test_prebuild)$ :: NVRTC|nvrtc :: have_nvrtc
^(cli_install|cli_blas_netlib|cli_blas_numpy|cli_blas_pip_numpy|cli_python|cli_gpu_python)$ :: built with sanitizers :: plain_build
^(cli_blas_netlib|cli_blas_numpy|cli_blas_pip_numpy)$ :: is not built :: have_blas_lib
^cli_blas_netlib$ :: libblas-test :: have_blas_test
^(cli_blas_numpy|cli_python)$ :: has no numpy|numpy is not installed :: have_numpy
^cli_blas_pip_numpy$ :: no pip numpy :: have_pip_numpy
^cli_python$ :: virtual environment|setuptools :: have_venv
^cli_gpu_python$ :: torch :: have_torch_gpu
^cli_[a-z_]+$ :: sqlite3 :: have_sqlite3
^(cli_json|cli_report)$ :: python3 is missing :: have_python3
^cli_report$ :: Chromium :: have_chromium
^cli_terminal$ :: script \(util-linux\) :: have_script
^cli_slurm$ :: needs root|is not installed :: can_slurm
^cli_slurm$ :: does not start here :: unknowable
'

# ---- the run ---------------------------------------------------------------------------------
rm -f "$junit"
start=$(date +%s)
(cd "$build" && ctest --output-on-failure -j "$jobs" ${exclude:+-E "$exclude"} --output-junit "$junit")
rc=$?
took=$(($(date +%s) - start))
[ -s "$junit" ] || { echo "ctest-summary: ctest wrote no $junit (exit $rc)"; exit 1; }

# name, status (run, fail, notrun), skipped (CTest's skip code), the line it skipped with: the
# last line of its output that says "skip", else its last line
results=$(awk '
  function decode(s) { gsub(/&lt;/, "<", s); gsub(/&gt;/, ">", s); gsub(/&quot;/, "\"", s); gsub(/&apos;/, "\047", s);
                       gsub(/&amp;/, "\\&", s); gsub(/\t/, " ", s); return s }
  /<testcase / { match($0, /name="[^"]*"/); name = substr($0, RSTART + 6, RLENGTH - 7)
                 match($0, /status="[^"]*"/); status = substr($0, RSTART + 8, RLENGTH - 9)
                 skipped = 0; said = ""; last = ""; out = 0 }
  /<skipped / { skipped = 1 }
  /<system-out>/ { out = 1; sub(/.*<system-out>/, "") }
  out { line = $0; ended = sub(/<\/system-out>.*/, "", line)
        if (line ~ /[^ \t]/) { last = line; if (tolower(line) ~ /skip/) said = line }
        if (ended) out = 0 }
  /<\/testcase>/ { print name "\t" status "\t" skipped "\t" decode(said != "" ? said : last) }' "$junit")

passed=() failed=() unexpected=() causes=()
declare -A by_cause
while IFS=$'\t' read -r name status skipped said; do
  [ -n "$name" ] || continue
  if [ "$status" = run ]; then passed+=("$name"); continue; fi
  if [ "$status" != notrun ] || [ "$skipped" != 1 ]; then failed+=("$name"); continue; fi
  expected=0
  while IFS= read -r rule; do
    [ -n "$rule" ] || continue
    tests=${rule%% :: *} rest=${rule#* :: }
    line=${rest%% :: *} probe=${rest##* :: }
    [[ $name =~ $tests ]] && [[ $said =~ $line ]] || continue
    if $probe; then break; fi # the machine has it: this skip is not expected
    expected=1
    break
  done <<<"$rules"
  cause="$said"
  [ $expected = 1 ] || { unexpected+=("$name"); cause="UNEXPECTED: $said"; }
  [ -n "${by_cause[$cause]+x}" ] || causes+=("$cause")
  by_cause[$cause]="${by_cause[$cause]:-}${by_cause[$cause]:+ }$name"
done <<<"$results"

# every test file under tests/ is a test that must have been run (or left out on purpose)
missing=()
ran=" $(cut -f1 <<<"$results" | tr '\n' ' ') "
for f in "$src"/tests/test_*.c "$src"/tests/cli_*.sh; do
  t=$(basename "${f%.*}")
  [ -n "$exclude" ] && [[ $t =~ $exclude ]] && continue
  case $t in test_blas | test_blas_offload) have_blas_lib || continue ;; esac # x86-64 only
  [[ $ran == *" $t "* ]] || missing+=("$t")
done

skipped_n=0
for c in "${causes[@]}"; do skipped_n=$((skipped_n + $(wc -w <<<"${by_cause[$c]}"))); done
echo
echo "ctest-summary: $build: $(wc -l <<<"$results") tests in ${took} s: ${#passed[@]} passed, ${#failed[@]} failed, $skipped_n skipped"
if [ ${#causes[@]} -gt 0 ]; then
  echo "skipped, by the cause each test gave:"
  for c in "${causes[@]}"; do printf '  %s (%d)\n      %s\n' "$c" "$(wc -w <<<"${by_cause[$c]}")" "${by_cause[$c]}"; done
fi
bad=0
[ ${#failed[@]} = 0 ] || { echo "FAILED: ${failed[*]}"; bad=1; }
[ ${#unexpected[@]} = 0 ] ||
  { echo "FAILED: skipped, though this machine has what they need: ${unexpected[*]}"; bad=1; }
[ ${#missing[@]} = 0 ] || { echo "FAILED: test files that did not run: ${missing[*]}"; bad=1; }
[ $rc = 0 ] || [ $bad = 1 ] || { echo "FAILED: ctest exited $rc"; bad=1; }
if [ $bad = 0 ]; then
  echo "ctest-summary: every test this machine can run passed (${#passed[@]})"
fi
exit $bad
