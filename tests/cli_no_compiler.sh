#!/usr/bin/env bash
# cli_no_compiler.sh MMTUNE DATA - kernels already built need no compiler: a problem tuned
# and benched (through libmmtuned) with the C compiler a script that runs cc, then benched
# again with that script no longer runnable (a removed compiler, a process limit): the
# tuned kernel comes from the cache under the same key and the bench is right; a kernel
# never built then fails to compile, with a message.
set -u
MMTUNE=$1
DATA=$2
. "$(dirname "$0")/clilib.sh"
export MMTUNE_CACHE_DIR="$tmp/kernels"
real_cc=$(command -v cc) || skip "no cc on this machine"
printf '#!/bin/sh\nexec %s "$@"\n' "$real_cc" >"$tmp/cc"
chmod +x "$tmp/cc"
export CC="$tmp/cc"
bench() { "$MMTUNE" bench --device cpu --problem "$1" --db "$tmp/b.db"; }
check "a tune with the compiler" 0 "$MMTUNE" --device cpu --problem "f32 row NN 40x30x20" --budget 2 --db "$tmp/b.db"
check "a bench with the compiler" 0 bench "f32 row NN 40x30x20"
chmod -x "$tmp/cc"
check "the same bench, the compiler no longer runnable: the cached kernel serves" 0 bench "f32 row NN 40x30x20"
grep -q "tuned" "$tmp/out" && echo "ok: the tuned kernel served it" ||
  { echo "FAIL: the tuned kernel did not serve it"; cat "$tmp/out"; fail=1; }
check "a kernel never built: it needs the compiler" 1 bench "f64 row NN 40x30x20"
grep -q "cannot run the C compiler" "$tmp/out" && echo "ok: the table says why" ||
  { echo "FAIL: the table does not say why"; cat "$tmp/out"; fail=1; }
exit $fail
