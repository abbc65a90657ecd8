#!/usr/bin/env bash
# cli_kill_loop.sh - SIGKILL at random moments, again and again (a machine lost over and
# over): no committed trial is ever lost (the count never goes down from one kill to the
# next), the database stays sound (PRAGMA integrity_check), and the same command finally
# finishes with every problem tuned. KILLS kills (8 here; docs/RELIABILITY.md quotes a run
# of 25: KILLS=25 bash tests/cli_kill_loop.sh build/mmtune tests/data). The compile folders
# killed processes leave are swept by the next process that compiles.
set -u
MMTUNE=$1
. "$(dirname "$0")/clilib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 is not installed: skipped"; exit 77; }
kills=${KILLS:-8}
cat >"$tmp/s.yaml" <<'YAML'
problems:
  - {m: [96, 160], n: 128, k: 192}
  - {m: 64, n: 64, k: 64, dtype: f64}
YAML
run() { "$MMTUNE" --device cpu --shapes "$tmp/s.yaml" --db "$tmp/k.db" --strategy exhaustive --budget 4 --quiet "$@"; }
count() { q "$tmp/k.db" "select count(*) from trial" 2>/dev/null || echo 0; }
set -m
last=0
RANDOM=7
for i in $(seq "$kills"); do
  run >/dev/null 2>&1 &
  pid=$!
  sleep "0.$((RANDOM % 9 + 1))$((RANDOM % 10))"
  kill -KILL -- -$pid 2>/dev/null # the job's whole process group: mmtune and its worker, as a lost machine
  wait $pid 2>/dev/null
  now=$(count)
  if [ "$now" -lt "$last" ]; then echo "FAIL: kill $i: $last trials before, $now after"; fail=1; fi
  last=$now
done
echo "ok: $kills kills at random moments, $last trials kept, none lost"
[ "$(q "$tmp/k.db" 'PRAGMA integrity_check')" = ok ] || { echo "FAIL: integrity_check"; fail=1; }
check "the same command finishes" 0 run
tuned=$(sqlite3 "$tmp/k.db" "select count(*) from best")
[ "$tuned" = 3 ] || { echo "FAIL: $tuned of 3 problems have a best"; fail=1; }
[ "$(sqlite3 "$tmp/k.db" 'PRAGMA integrity_check')" = ok ] || { echo "FAIL: integrity_check at the end"; fail=1; }

# the compile folders a kill leaves: the next process that compiles removes those of dead
# processes (older than a minute), never one of a live process, a new one, or what a link
# points to
mkdir -p "$tmp/t" "$tmp/victim" && touch "$tmp/victim/keep"
dead=$(bash -c 'echo $$')
for f in "cc-$dead-AAAAAA" "load-$dead-BBBBBB" "cc-$$-CCCCCC" "cc-$dead-DDDDDD"; do
  mkdir "$tmp/t/mmtune-$f" && touch "$tmp/t/mmtune-$f/kernel.c"
done
ln -s "$tmp/victim" "$tmp/t/mmtune-cc-$dead-EEEEEE"
touch -h -d '2 minutes ago' "$tmp/t/mmtune-cc-$dead-AAAAAA" "$tmp/t/mmtune-load-$dead-BBBBBB" \
  "$tmp/t/mmtune-cc-$$-CCCCCC" "$tmp/t/mmtune-cc-$dead-EEEEEE"
check "a compile after the kills" 0 env TMPDIR="$tmp/t" MMTUNE_CACHE_DIR="$tmp/sweep-cache" \
  "$MMTUNE" --device cpu --problem "f32 row NN 24x20x16" --db "$tmp/sweep.db" --budget 1 --quiet
left=$(cd "$tmp/t" && ls -d mmtune-* | sort | tr '\n' ' ')
expect_eq "  the dead processes' old folders are gone, the others stay" "$left" \
  "$(printf '%s\n' "mmtune-cc-$$-CCCCCC" "mmtune-cc-$dead-DDDDDD" "mmtune-cc-$dead-EEEEEE" | sort | tr '\n' ' ')"
[ -e "$tmp/victim/keep" ] || { echo "FAIL: a link's target was emptied"; fail=1; }
exit $fail
