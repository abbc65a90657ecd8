#!/usr/bin/env bash
# install-deps.sh [build|test] - installs what mmtune needs on a Debian-like machine, only
# what is missing.
#   build (make build, make tune): the compiler and CMake, SQLite3, libyaml, libcsv (mmtune
#         import reads CSV with it), OpenSSL's libcrypto (SHA-256) and OpenBLAS (the CPU
#         baseline, opened at run time).
#   test  (make test): those, and the tools of the tests: the sqlite3 shell, clang with its
#         runtime libraries (libFuzzer, for scripts/fuzz.sh), Debian's reference BLAS, its
#         netlib test programs (libblas-test) and numpy (a client that links libblas.so.3)
#         for the drop-in BLAS's tests; optional, each for one test that skips without it,
#         the others going on where they cannot be installed: Slurm and MUNGE
#         (tests/cli_slurm.sh starts a one-node cluster of its own) and Chromium's headless
#         shell (tests/cli_report.sh renders mmtune report's page and screenshots it); and
#         pip's numpy in .venv-numpy (tests/cli_blas_pip_numpy.sh: the drop-in under the
#         numpy most Python users have, which bundles its own renamed OpenBLAS).
# The CUDA toolkit is optional: the CUDA backend opens libcuda and libnvrtc at run time when
# present. apt waits up to 5 minutes for another apt or dpkg that holds its lock.
set -euo pipefail
what=${1:-build}
case $what in build | test) ;; *) echo "usage: $0 [build|test]" >&2; exit 2 ;; esac
packages=(gcc make cmake pkg-config libsqlite3-dev libyaml-dev libcsv-dev libssl-dev libopenblas-dev)
[ "$what" = test ] && packages+=(sqlite3 clang libclang-rt-dev libblas3 libblas-test python3-numpy)
apt=(apt-get -o DPkg::Lock::Timeout=300)
missing() {
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}
mapfile -t needed < <(missing "${packages[@]}")
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
updated=0
if [ ${#needed[@]} -gt 0 ]; then
  echo "installing: ${needed[*]}"
  $sudo "${apt[@]}" update -qq
  updated=1
  DEBIAN_FRONTEND=noninteractive $sudo "${apt[@]}" install -y -qq "${needed[@]}" >/dev/null
fi
# optional TEST PACKAGE...: what one test needs, where nobody is asked for a password; a
# group that cannot be installed leaves that test to skip and the others as they are
optional() {
  local test=$1 wanted
  shift
  mapfile -t wanted < <(missing "$@")
  [ ${#wanted[@]} -gt 0 ] && { [ -z "$sudo" ] || sudo -n true 2>/dev/null; } || return 0
  echo "installing (optional, for $test): ${wanted[*]}"
  { [ $updated = 1 ] || $sudo "${apt[@]}" update -qq; } && updated=1 &&
    DEBIAN_FRONTEND=noninteractive $sudo "${apt[@]}" install -y -qq --no-install-recommends "${wanted[@]}" >/dev/null ||
    echo "install-deps: could not install ${wanted[*]}: $test will skip"
}
[ "$what" = test ] || exit 0
optional tests/cli_slurm.sh slurmctld slurmd slurm-client munge
optional tests/cli_report.sh chromium-headless-shell
optional tests/cli_blas_pip_numpy.sh python3-venv
venv=$(dirname "$0")/../.venv-numpy
if ! "$venv/bin/python" -c "import numpy" 2>/dev/null; then
  echo "installing (optional, for tests/cli_blas_pip_numpy.sh): pip's numpy in .venv-numpy"
  { python3 -m venv "$venv" && "$venv/bin/pip" install -q --disable-pip-version-check numpy; } >/dev/null 2>&1 ||
    echo "install-deps: could not install pip's numpy: tests/cli_blas_pip_numpy.sh will skip"
fi
