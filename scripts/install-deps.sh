#!/usr/bin/env bash
# install-deps.sh - installs what mmtune needs on a Debian-like machine, only what is
# missing: the compiler and CMake, SQLite3, libyaml, libcsv (mmtune import reads CSV with
# it), OpenSSL's libcrypto (SHA-256), OpenBLAS (the CPU baseline, opened at run time), the
# sqlite3 shell, and clang with its runtime libraries (libFuzzer, for scripts/fuzz.sh); for
# the drop-in BLAS's tests, Debian's reference BLAS, its netlib test programs (libblas-test)
# and numpy (a client that links libblas.so.3). The CUDA toolkit is optional: the CUDA
# backend opens libcuda and libnvrtc at run time when present. Optional too, for
# tests/cli_slurm.sh alone: Slurm and MUNGE, from which that test starts a one-node cluster
# of its own; where they cannot be installed the build goes on and the test skips.
set -euo pipefail
packages=(gcc make cmake pkg-config libsqlite3-dev libyaml-dev libcsv-dev libssl-dev libopenblas-dev sqlite3 clang
          libclang-rt-dev libblas3 libblas-test python3-numpy)
optional=(slurmctld slurmd slurm-client munge)
missing() {
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}
mapfile -t needed < <(missing "${packages[@]}")
mapfile -t wanted < <(missing "${optional[@]}")
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
if [ ${#needed[@]} -gt 0 ]; then
  echo "installing: ${needed[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${needed[@]}" >/dev/null
fi
# the optional packages only where nobody is asked for a password, and never fatal
if [ ${#wanted[@]} -gt 0 ] && { [ -z "$sudo" ] || sudo -n true 2>/dev/null; }; then
  echo "installing (optional, for tests/cli_slurm.sh): ${wanted[*]}"
  { [ ${#needed[@]} -gt 0 ] || $sudo apt-get update -qq; } &&
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${wanted[@]}" >/dev/null ||
    echo "install-deps: could not install ${wanted[*]}: tests/cli_slurm.sh will skip"
fi
