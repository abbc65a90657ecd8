#!/usr/bin/env bash
# mutants.sh [--working-tree] [NAME_PATTERN] - does the test suite guard the code? Each
# mutation under scripts/mutants/ (a unified diff: one small, deliberate bug in a kernel,
# the tuner's verification or final choice, the store, the miss counters, the drop-in BLAS)
# is applied on its own to a scratch copy of the tree, which is rebuilt incrementally, and
# the test its header names (`# test: NAME`, a ctest name or regex) is run: it must fail.
# A mutation whose test passes survived: the script prints the table and exits 1. One
# whose header says `# needs: FLAG` (a /proc/cpuinfo flag such as avx512f) is not applied
# on a host without it, and is said so. Before any mutation the named tests must pass on
# the unmutated copy.
#
# The copy is HEAD's tree (git archive), or with --working-tree the files of the checkout
# as they are (tracked and untracked, ignored ones left out); the checkout itself is never
# touched. NAME_PATTERN (an extended regex) picks mutations by file name. Run it before a
# release and after any change to a kernel, the verifier or the store (README: Tests); it
# is not part of `make test`: each mutation costs a rebuild and its test's run.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
from=head pattern=.
for arg in "$@"; do
  case $arg in
    --working-tree) from=working ;;
    -h | --help) sed -n '2,16p' "$0"; exit 0 ;;
    *) pattern=$arg ;;
  esac
done
mapfile -t mutants < <(ls scripts/mutants/*.diff | grep -E -- "$pattern")
[ ${#mutants[@]} -gt 0 ] || { echo "mutants.sh: no mutation matches '$pattern'"; exit 2; }
field() { sed -n "s/^# $2: *//p" "$1" | head -1; }

work=$(mktemp -d /tmp/mmtune-mutants-XXXXXX)
trap 'rm -rf "$work"' EXIT
tree=$work/tree build=$work/build log=$work/log
mkdir -p "$tree"
if [ $from = head ]; then
  git archive HEAD | tar -x -C "$tree"
else
  git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$tree" 2>/dev/null
fi
export MMTUNE_CACHE_DIR=$work/cache # nothing of the user's kernel cache
jobs=$(nproc)
build() { cmake --build "$build" -j "$jobs" >"$log" 2>&1; }
start=$(date +%s)
what=$(git rev-parse --short HEAD)
[ $from = head ] || what="$what and the working tree"
echo "mutants.sh: ${#mutants[@]} mutation(s) of $what, in $work"
cmake -S "$tree" -B "$build" -DCMAKE_BUILD_TYPE=Release >"$log" 2>&1 && build ||
  { cat "$log"; echo "mutants.sh: the unmutated tree does not build"; exit 1; }

# the named tests, on the unmutated tree: a test that fails already kills nothing
names=$(for m in "${mutants[@]}"; do field "$m" test; done | sort -u | paste -sd'|')
(cd "$build" && ctest -R "^($names)$" -j "$jobs" --timeout 600 >"$log" 2>&1) ||
  { cat "$log"; echo "mutants.sh: the tests ($names) fail on the unmutated tree"; exit 1; }
echo "the tests they name pass on the unmutated tree ($names): $(($(date +%s) - start)) s to build and run"

have_flag() { grep -qw -- "$1" /proc/cpuinfo; }
printf '%-34s %-26s %-16s %s\n' mutation file test result
killed=0 survived=0 skipped=0 broken=0
for m in "${mutants[@]}"; do
  name=$(basename "$m" .diff) test=$(field "$m" test) needs=$(field "$m" needs)
  file=$(sed -n 's|^+++ b/||p' "$m" | head -1)
  t0=$(date +%s)
  if [ -n "$needs" ] && ! have_flag "$needs"; then
    result="not run: this host lacks $needs"
    skipped=$((skipped + 1))
  elif ! git -C "$tree" apply -p1 "$root/$m" 2>"$log"; then
    result="BROKEN: the diff does not apply ($(head -1 "$log"))"
    broken=$((broken + 1))
  else
    if ! build; then
      result="BROKEN: the mutant does not build"
      broken=$((broken + 1))
    elif (cd "$build" && ctest -R "^($test)$" --timeout 600 >"$log" 2>&1); then
      result="SURVIVED ($(($(date +%s) - t0)) s)"
      survived=$((survived + 1))
    elif grep -q "No tests were found" "$log"; then
      result="BROKEN: no test named $test"
      broken=$((broken + 1))
    else
      result="killed ($(($(date +%s) - t0)) s)"
      killed=$((killed + 1))
    fi
    git -C "$tree" apply -R -p1 "$root/$m" || { echo "mutants.sh: $name does not revert"; exit 1; }
  fi
  printf '%-34s %-26s %-16s %s\n' "$name" "$file" "$test" "$result"
done
build || { cat "$log"; echo "mutants.sh: the tree does not build again after the mutations"; exit 1; }

ran=$((killed + survived))
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
echo "mutants.sh: $(date -u '+%Y-%m-%d'), $(nproc) cores ($cpu): $killed of $ran killed" \
  "($survived survived, $broken broken, $skipped not run on this host) in $(($(date +%s) - start)) s"
[ $survived = 0 ] && [ $broken = 0 ]
