#!/usr/bin/env bash
# cli_transient.sh MMTUNE DATA - a failure that is the machine's passing state (here a
# compiler that runs out of memory) is not the candidate's verdict: the tune records no
# trial of it, and the same command, once the machine is well, measures every candidate
# and finds a best (it had reused the failures as compile errors: "no configuration
# passed verification").
set -u
MMTUNE=$1
DATA=$2
. "$(dirname "$0")/clilib.sh"
need_sqlite3
export MMTUNE_CACHE_DIR="$tmp/kernels"
printf '#!/bin/sh\necho "cc1: out of memory allocating 65536 bytes after a total of 1048576 bytes" >&2\nexit 1\n' \
  >"$tmp/cc"
chmod +x "$tmp/cc"
tune() { "$MMTUNE" --device cpu --problem "f32 row NN 24x20x16" --budget 3 --db "$tmp/t.db"; }
check "a tune while the compiler runs out of memory" 1 env CC="$tmp/cc" "$MMTUNE" --device cpu \
  --problem "f32 row NN 24x20x16" --budget 3 --db "$tmp/t.db"
expect_eq "no trial is recorded of it" "$(q "$tmp/t.db" "select count(*) from trial")" 0
check "the same tune, the machine well again" 0 tune
expect_eq "a best" "$(q "$tmp/t.db" "select count(*) from best")" 1
exit $fail
