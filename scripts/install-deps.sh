#!/usr/bin/env bash
# install-deps.sh - installs what mmtune needs on a Debian-like machine, only what is
# missing: the compiler and CMake, SQLite3, libyaml, libcsv (mmtune import reads CSV with
# it), OpenSSL's libcrypto (SHA-256),
# OpenBLAS (the CPU baseline, opened at run time), the sqlite3 shell, and clang with its
# runtime libraries (libFuzzer, for scripts/fuzz.sh). The CUDA toolkit
# is optional: the CUDA backend opens libcuda and libnvrtc at run time when present.
set -euo pipefail
packages=(gcc make cmake pkg-config libsqlite3-dev libyaml-dev libcsv-dev libssl-dev libopenblas-dev sqlite3 clang libclang-rt-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
