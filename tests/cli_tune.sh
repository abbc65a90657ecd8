#!/usr/bin/env bash
# cli_tune.sh - the real mmtune binary end to end: usage errors exit 2 and write nothing
# (bare mmtune and -h print the usage; an option a command does not take is refused), a
# tiny tune records trials and a best per problem and prints its pipeline figures, a rerun
# resumes without measuring a candidate again, keeps the same winners, and prints figures
# and ratios of its own run (the winner and the vendor timed side by side in it), a time
# budget that cuts the search short is marked partial in the table, the session row and
# best_view, the session row keeps the command as a shell reads it, a tune over a narrowed
# --space keeps a better best the space cannot hold, and `mmtune show` prints what the
# database holds, for one device with --device.
set -u
MMTUNE=$1
DATA=$2
. "$(dirname "$0")/clilib.sh"

check "help" 0 "$MMTUNE" --help
grep -q -- "--shapes" "$tmp/out" || { echo "FAIL: help text"; fail=1; }
check "-h" 0 "$MMTUNE" -h
grep -q "^usage: mmtune" "$tmp/out" || { echo "FAIL: -h prints no usage"; fail=1; }
check "bare mmtune" 2 "$MMTUNE"
grep -q "^usage: mmtune" "$tmp/err" || { echo "FAIL: bare mmtune prints no usage"; fail=1; }
check "an option show does not take" 2 "$MMTUNE" show --budget 3 --db "$tmp/x.db"
grep -q "show takes no --budget" "$tmp/err" || { echo "FAIL: $(cat "$tmp/err")"; fail=1; }
check "an option bench does not take" 2 "$MMTUNE" bench --device cpu --problem "f32 row NN 8x8x8" --strategy random
check "show on an absent device" 2 "$MMTUNE" show --device 99 --db "$tmp/x.db"
check "unknown option" 2 "$MMTUNE" --bogus
check "missing shapes" 2 "$MMTUNE" --device cpu --db "$tmp/x.db"
check "unknown device" 2 "$MMTUNE" --device tpu0 --shapes "$DATA/shapes_tiny.yaml" --db "$tmp/x.db"
check "absent GPU" 2 "$MMTUNE" --device 99 --shapes "$DATA/shapes_tiny.yaml" --db "$tmp/x.db"
check "bad budget" 2 "$MMTUNE" --device cpu --shapes "$DATA/shapes_tiny.yaml" --budget ten --db "$tmp/x.db"
check "bad jobs" 2 "$MMTUNE" --device cpu --shapes "$DATA/shapes_tiny.yaml" --jobs -3 --db "$tmp/x.db"
check "bad time budget" 2 "$MMTUNE" --device cpu --shapes "$DATA/shapes_tiny.yaml" --budget 5x --db "$tmp/x.db"
for n in 99999999999999999999999 " -1" "+5" 18446744073709551615m; do # past 64 bits, signed, a year and more
  check "budget '$n'" 2 "$MMTUNE" --device cpu --shapes "$DATA/shapes_tiny.yaml" --budget "$n" --db "$tmp/x.db"
  check "seed '$n'" 2 "$MMTUNE" --device cpu --shapes "$DATA/shapes_tiny.yaml" --seed "$n" --db "$tmp/x.db"
done
check "bad shapes file" 2 "$MMTUNE" --device cpu --shapes "$DATA/shapes_bad_key.yaml" --db "$tmp/x.db"
grep -q "shapes_bad_key.yaml:3:" "$tmp/err" || { echo "FAIL: no file:line in: $(cat "$tmp/err")"; fail=1; }
printf 'problems:\n  - {m: 64, n: 48, k: 40}\n  - {m: 64, n: 64, k: 64, dtype: bf16, out: f32}\n' >"$tmp/gpu_mode.yaml"
check "a mode the CPU has no template for" 2 "$MMTUNE" --device cpu --shapes "$tmp/gpu_mode.yaml" --db "$tmp/x.db"
expect_err "  names the file, the problem and what the device serves" \
  "gpu_mode.yaml: bf16->f32 row NN 64x64x64: no template serves bf16 on the cpu backend \(.* serves f32, f64\)"
check "FP8 on the CPU" 2 "$MMTUNE" --device cpu --problem "e4m3->bf16 row NT 64x64x64" --db "$tmp/x.db"
expect_err "  no template serves it" "e4m3->bf16 row NT 64x64x64: no template serves e4m3 on the cpu backend"
check "FP8 C on the CPU" 2 "$MMTUNE" --device cpu --problem "e4m3->e5m2 row NT 64x64x64" --db "$tmp/x.db"
expect_err "  no template serves it" "e4m3->e5m2 row NT 64x64x64: no template serves e4m3 on the cpu backend"
check "an FP8 C of bf16 inputs" 2 "$MMTUNE" --device cpu --problem "bf16->e4m3 row NT 64x64x64" --db "$tmp/x.db"
expect_err "  names the types C may have" "output type after -> \\(f32, f64, bf16, f16; e4m3, e5m2 for FP8"
check "block-scaled FP8 on the CPU" 2 "$MMTUNE" --device cpu --problem "e4m3-block->bf16 row NT 64x64x64" --db "$tmp/x.db"
expect_err "  no template serves it" "no template serves e4m3-block on the cpu backend"
check "missing shapes file" 2 "$MMTUNE" --device cpu --shapes "$tmp/none.yaml" --db "$tmp/x.db"
check "an endless shapes file" 2 "$MMTUNE" --device cpu --shapes /dev/zero --db "$tmp/x.db"
expect_err "read no further than 64 MiB" 'larger than 64 MiB'
check "an empty --db" 2 "$MMTUNE" --device cpu --shapes "$DATA/shapes_tiny.yaml" --db ""
[ -e "$tmp/x.db" ] && { echo "FAIL: bad input wrote a database"; fail=1; }

# a problem no machine holds (C alone 4 TB) is refused before anything is allocated, not
# grown into until the out-of-memory killer ends the worker
check "a problem larger than the memory" 1 "$MMTUNE" --device cpu --problem "f32 row NN 1048576x1048576x1" \
  --db "$tmp/big.db" --budget 1
expect_err "the message says how much it needs" 'needs [0-9.]+ GB of host memory'
# a file-size limit the database passes: a message and exit 1, not a death by SIGXFSZ
check "a file-size limit" 1 bash -c "ulimit -f 16; exec \"\$0\" --device cpu --shapes \"\$1\" --db \"\$2\" --budget 3" \
  "$MMTUNE" "$DATA/shapes_tiny.yaml" "$tmp/limited.db"
expect_err "it says what failed" 'mmtune: .*limited.db'
check "tiny tune" 0 "$MMTUNE" --device cpu --shapes "$DATA/shapes_tiny.yaml" --db "$tmp/t.db" --budget 3
cat "$tmp/out" "$tmp/err"
[ "$(grep -c 'x.*x' "$tmp/out")" -ge 3 ] || { echo "FAIL: the table lacks rows"; fail=1; }
# the pipeline figures of every problem: compile and measure throughput, the idle share
[ "$(grep -cE 'pipeline: .*compile [0-9.]+/s in turn, measure [0-9.]+/s; idle waiting for compile [0-9]+%' \
     "$tmp/out")" = 3 ] || { echo "FAIL: the table lacks the pipeline figures"; fail=1; }
grep -qE 'compile [0-9.]+/s +measure [0-9.]+/s' "$tmp/err" || { echo "FAIL: the progress lacks throughputs"; fail=1; }
# the configs of the table, in order: a rerun must print the same
configs() { sed -n '/^problem /,/^vendor:/p' "$tmp/out" | grep -oE '[A-Z_]+=[-0-9]+(,[A-Z_]+=[-0-9]+)*'; }
winners=$(configs)
check "show" 0 "$MMTUNE" show --db "$tmp/t.db"
cat "$tmp/out"
if command -v sqlite3 >/dev/null; then
  best=$(sqlite3 "$tmp/t.db" 'select count(*) from best_view')
  trials=$(sqlite3 "$tmp/t.db" 'select count(*) from trial')
  [ "$best" = 3 ] || { echo "FAIL: best_view has $best rows, wanted 3"; fail=1; }
  [ "$trials" -ge 3 ] || { echo "FAIL: $trials trials"; fail=1; }
  bests=$(sqlite3 "$tmp/t.db" 'select params from best_view order by params')
  q() { sqlite3 "$tmp/t.db" "$1"; }
  [ "$(q "select outcome || ' ' || sum(partial) from session, best")" = "complete 0" ] ||
    { echo "FAIL: a tune of every planned candidate is not complete"; fail=1; }
  # the search's trials (the vendor round of each run times the winner again)
  searched="select count(*) from trial where coalesce(message, '') not like 'vendor round:%'"
  trials=$(q "$searched")
  check "resume" 0 "$MMTUNE" --device cpu --shapes "$DATA/shapes_tiny.yaml" --db "$tmp/t.db" --budget 3
  again=$(q "$searched")
  [ "$again" = "$trials" ] || { echo "FAIL: the rerun measured again ($trials -> $again trials)"; fail=1; }
  # The rerun's ratios are its own: each best is the winner's trial timed in this run,
  # the vendor's figure was timed beside that very trial, and the table prints those two.
  run2=$(q 'select max(id) from session')
  [ "$(q "select count(*) from best b join trial t on t.id = b.trial_id join baseline v on v.trial_id = t.id
          where t.session_id = $run2 and t.message like 'vendor round: timed side by side with OpenBLAS%'")" = 3 ] ||
    { echo "FAIL: a rerun's figures are not its own:"; q 'select * from baseline'; fail=1; }
  [ "$(q "select count(*) from baseline v join session s on s.id = $run2 where v.created >= s.started")" = 3 ] ||
    { echo "FAIL: a vendor figure older than the rerun"; fail=1; }
  while IFS='|' read -r m ours vendor; do
    row=$(grep -E "^f[0-9]+ (row|col) [NT]{2} ${m}x" "$tmp/out")
    set -- $row # problem (4 words), family, GFLOP/s, median, interval (3), vendor, vendor ms, ...
    awk -v a="$6" -v b="$ours" -v c="${11}" -v d="$vendor" \
      'BEGIN { exit !((a - b) ^ 2 < 0.03 && (c - d) ^ 2 < 0.03) }' ||
      { echo "FAIL: the table's $6 and ${11} for $m are not the database's $ours and $vendor"; fail=1; }
    [ "$8" != "-" ] && [ "${10}" != "-" ] || { echo "FAIL: an interval is missing: $row"; fail=1; }
  done < <(q "select p.m, b.gflops, v.gflops from best b join problem p on p.id = b.problem_id
              join baseline v on v.trial_id = b.trial_id")
  [ "$(configs)" = "$winners" ] || { echo "FAIL: the rerun chose otherwise:"; echo "$winners"; configs; fail=1; }
  [ "$(sqlite3 "$tmp/t.db" 'select params from best_view order by params')" = "$bests" ] ||
    { echo "FAIL: the rerun moved a best"; fail=1; }
  [ "$(grep -c 'final: kept from an earlier run' "$tmp/out")" = 3 ] || { echo "FAIL: the rerun decided anew"; fail=1; }
  ok=$(sqlite3 "$tmp/t.db" "select count(*) from trial where status='ok' and rel_error >= 0")
  [ "$ok" -ge 3 ] || { echo "FAIL: only $ok verified trials"; fail=1; }
  # a tune over a narrowed space leaves a best it cannot hold (nor build, nor race) where
  # that best's figure on record beats its winner (here made to, on a copy)
  cp "$tmp/t.db" "$tmp/n.db"
  nq() { sqlite3 "$tmp/n.db" "$1"; }
  bp="select c.params from best b join config c on c.id = b.config_id join problem p on p.id = b.problem_id
      where p.m = 64"
  held=$(nq "$bp")
  mc=$(echo "$held" | grep -oE 'MC=[0-9]+' | cut -d= -f2)
  other=$([ "$mc" = 96 ] && echo 168 || echo 96)
  "$(dirname "$0")/../bench/subspace.sh" "$(dirname "$0")/../search_spaces/cpu_gemm_avx.yaml" "MC=[$other]" \
    "default:{ISA: 1, MR: 6, NV: 2, MC: $other, KC: 256, NC: 4096, PAR: 1, THREADS: 0, LEVELS: 0}" >"$tmp/narrow.yaml"
  nq "update best set gflops = 1e6, time_ms = 1e-7 where problem_id = (select id from problem where m = 64)"
  check "narrowed space" 0 "$MMTUNE" --device cpu --shapes "$DATA/shapes_tiny.yaml" --db "$tmp/n.db" --budget 3 \
    --space "$tmp/narrow.yaml"
  [ "$(nq "$bp")" = "$held" ] || { echo "FAIL: a narrowed space replaced $held with $(nq "$bp")"; fail=1; }
  grep -q "the database's best stands (outside this space" "$tmp/out" ||
    { echo "FAIL: the table does not say the best outside the space stands"; fail=1; }
  # a time budget stops new candidates: each of this problem's takes 0.1 s or more to time,
  # so 1 s measures about 10 and the final round, never the 54 to 108 of the space
  check "time budget" 0 "$MMTUNE" --device cpu --shapes "$DATA/shapes_budget.yaml" --db "$tmp/s.db" --budget 1s
  timed=$(sqlite3 "$tmp/s.db" 'select count(*) from trial')
  [ "$timed" -ge 1 ] && [ "$timed" -lt 40 ] || { echo "FAIL: --budget 1s measured $timed trials"; fail=1; }
  [ "$(sqlite3 "$tmp/s.db" 'select budget from session')" = 1s ] || { echo "FAIL: session budget"; fail=1; }
  # ... and says so: the table's note, the session row, best_view
  grep -qE "note: partial: the time budget \(1s per problem\) ended the search after [0-9]+ of [0-9]+ candidates" \
    "$tmp/out" || { echo "FAIL: the table does not say the search was cut short"; fail=1; }
  [ "$(sqlite3 "$tmp/s.db" 'select outcome from session')" = partial ] || { echo "FAIL: session outcome"; fail=1; }
  [ "$(sqlite3 "$tmp/s.db" 'select partial from best_view')" = 1 ] || { echo "FAIL: best_view is not partial"; fail=1; }

  # the session row keeps the command as a shell reads it back
  check "one problem" 0 "$MMTUNE" --device cpu --problem "f32 row NN 24x20x16" --db "$tmp/p.db" --budget 1 --quiet
  cmd=$(sqlite3 "$tmp/p.db" 'select command from session')
  eval "set -- $cmd"
  [ "$#" = 10 ] && [ "$5" = "f32 row NN 24x20x16" ] || { echo "FAIL: the session's command: $cmd"; fail=1; }
  # show: one device's rows, every device's without --device
  check "show --device cpu" 0 "$MMTUNE" show --device cpu --db "$tmp/t.db"
  [ "$(grep -c 'cpu/gemm_avx.c' "$tmp/out")" = 3 ] || { echo "FAIL: show --device cpu"; cat "$tmp/out"; fail=1; }
  sqlite3 "$tmp/t.db" "update device set name = 'Another CPU'"
  check "show --device cpu, another device's file" 0 "$MMTUNE" show --device cpu --db "$tmp/t.db"
  grep -q "no tuned problems for" "$tmp/out" && ! grep -q 'cpu/gemm_avx.c' "$tmp/out" ||
    { echo "FAIL: show --device shows another device's rows"; cat "$tmp/out"; fail=1; }
else
  echo "sqlite3 is not installed: database checks skipped"
fi
[ $fail = 0 ] && echo "cli_tune: all passed"
exit $fail
