#!/usr/bin/env bash
# cli_shard.sh MMTUNE DATA - tuning on many workers: --shard I/N deals a shapes file's
# distinct problems so that every one is in exactly one shard (a shard may hold none and
# still makes its database), the shards' databases merge into one with every problem once,
# each with the vendor figure timed beside its best (the ratio) and each session's outcome;
# --device all on a host without a GPU is refused (exit 2, nothing written) and on one with
# GPUs tunes every problem on every GPU model, in one run (one session row) per model.
set -u
MMTUNE=$1
DATA=$2
. "$(dirname "$0")/clilib.sh"
need_sqlite3

# --- shards -----------------------------------------------------------------------------------
cat >"$tmp/shapes.yaml" <<'YAML'
problems:
  - {m: [8, 12, 16], n: 8, k: 8}
  - {m: 12, n: 8, k: 8}            # written twice: one problem
  - {m: 8, n: 8, k: 8, dtype: f64}
YAML
for i in 0 1 2; do
  check "shard $i/3" 0 "$MMTUNE" --device cpu --shapes "$tmp/shapes.yaml" --shard $i/3 --db "$tmp/s$i.db" \
    --strategy random --budget 1 --quiet
done
check "a shard with no problem" 0 "$MMTUNE" --device cpu --shapes "$tmp/shapes.yaml" --shard 7/8 --db "$tmp/s7.db" --budget 1
expect_err "says so" "shard 7/8 of .* holds no problem"
problems() { q "$1" "select mode || ' ' || m from best_view order by 1"; }
expect_eq "shard 0/3 takes problems 1 and 4" "$(problems "$tmp/s0.db" | tr '\n' ' ')" "f32 8 f64 8 "
expect_eq "shard 1/3 takes problem 2" "$(problems "$tmp/s1.db" | tr '\n' ' ')" "f32 12 "
expect_eq "shard 2/3 takes problem 3" "$(problems "$tmp/s2.db" | tr '\n' ' ')" "f32 16 "
check "merge the shards" 0 "$MMTUNE" merge "$tmp"/s[0-27].db -o "$tmp/all.db"
expect_eq "every problem once" "$(problems "$tmp/all.db" | tr '\n' ' ')" "f32 12 f32 16 f32 8 f64 8 "
expect_eq "  each with its vendor ratio" "$(q "$tmp/all.db" "select count(ratio) from best_view")" 4
# (the empty shard's session measured nothing: sessions travel with their trials)
expect_eq "  the shards' sessions complete" "$(q "$tmp/all.db" "select group_concat(outcome) from session")" \
  "complete,complete,complete"
check "--shard needs a shapes file" 2 "$MMTUNE" --device cpu --problem "f32 row NN 8x8x8" --shard 0/2
check "--shard I/N has I < N" 2 "$MMTUNE" --device cpu --shapes "$tmp/shapes.yaml" --shard 3/3

# --- --device all -------------------------------------------------------------------------------
"$MMTUNE" --device all --shapes "$tmp/shapes.yaml" --db "$tmp/gpus.db" --strategy random --budget 1 --quiet \
  >"$tmp/out" 2>"$tmp/err"
rc=$?
if grep -q "has none" "$tmp/err"; then
  expect_eq "--device all on a host without a GPU is bad input" "$rc" 2
  expect_err "  which says to use --device cpu" "--device cpu tunes the CPU"
  [ ! -e "$tmp/gpus.db" ] || { echo "FAIL: --device all without a GPU made a database"; fail=1; }
else # a GPU host: every GPU model tunes every problem, twins sharing them
  expect_eq "--device all runs" "$rc" 0
  expect_eq "every problem on every GPU model" "$(q "$tmp/gpus.db" "select count(distinct d.fingerprint || b.problem_id) =
    (select count(*) from device) * 4 from best b join device d on d.id = b.device_id")" 1
  expect_eq "one session a GPU model" "$(q "$tmp/gpus.db" "select count(*) = (select count(*) from device) from session")" 1
fi
exit $fail
