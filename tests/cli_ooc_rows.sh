#!/usr/bin/env bash
# cli_ooc_rows.sh MMTUNE DATA - the out-of-core knobs' rows (pseudo-template "ooc", written
# by a tune of a host: true problem on a GPU) among a tune's: show, show --json, report,
# export and import take them like any other row; a host: true problem on the CPU is
# refused before anything is written. The rows are written here as a GPU tune writes them
# (tests/test_gpu_ooc.c writes them for real where there is a GPU).
set -u
MMTUNE=$1
DATA=$2
. "$(dirname "$0")/clilib.sh"
need_sqlite3
# the hash of the out-of-core code's knobs, as a GPU tune records it (src/ooc_tuned.h)
ooc_hash=$(sed -n 's/^#define MMT_OOC_SOURCE_HASH "\([0-9a-f]*\)"$/\1/p' "$(dirname "$0")/../src/ooc_tuned.h")
[ ${#ooc_hash} = 64 ] || { echo "FAIL: no MMT_OOC_SOURCE_HASH in src/ooc_tuned.h"; exit 1; }

check "host: true on the CPU is refused" 2 "$MMTUNE" --device cpu --shapes "$DATA/shapes_host.yaml" --db "$tmp/h.db"
expect_err "  saying why" "host: true problems tune the out-of-core GEMM, which runs on a GPU"
[ -e "$tmp/h.db" ] && { echo "FAIL: a refused tune wrote the database"; fail=1; }

check "a tiny tune" 0 "$MMTUNE" --device cpu --shapes "$DATA/shapes_tiny.yaml" --db "$tmp/a.db" --budget 2 --quiet
# one ooc best of two trials for a problem the tune has, one for a problem of its own
q "$tmp/a.db" "
INSERT INTO template (name, source_hash) VALUES ('ooc', '$ooc_hash');
INSERT INTO problem (dtype, out_dtype, mode, layout, trans_a, trans_b, m, n, k)
  VALUES ('f32', 'f32', 'f32', 'row', 0, 0, 16384, 16384, 16384);
INSERT INTO config (template_id, params) SELECT id, 'OOC_TILE_M=8192,OOC_TILE_N=8192,OOC_PANEL_K=2048,OOC_STREAMS=2'
  FROM template WHERE name = 'ooc';
INSERT INTO config (template_id, params) SELECT id, 'OOC_TILE_M=8192,OOC_TILE_N=8192,OOC_PANEL_K=4096,OOC_STREAMS=2'
  FROM template WHERE name = 'ooc';
INSERT INTO trial (session_id, device_id, problem_id, config_id, status, time_ms_median, time_ms_min, time_ms_max,
                   gflops, rel_error, reps, message)
  SELECT (SELECT max(id) FROM session), (SELECT id FROM device), p.id, c.id, 'ok', t, t, t, 2.0 * 16384 * 16384 * 16384 / (t * 1e6),
         1e-7, 3, 'out-of-core round'
  FROM problem p, config c, (SELECT 300.0 AS t UNION SELECT 280.0) WHERE p.m = 16384
   AND c.params LIKE '%PANEL_K=' || (CASE t WHEN 300.0 THEN '2048' ELSE '4096' END) || '%';
INSERT INTO best (device_id, problem_id, template_name, template_id, config_id, trial_id, time_ms, gflops)
  SELECT device_id, problem_id, 'ooc', (SELECT id FROM template WHERE name = 'ooc'), config_id, id, time_ms_median, gflops
  FROM trial WHERE time_ms_median = 280.0;"
expect_eq "the rows (the premise)" "$(q "$tmp/a.db" "select count(*) from best_view where template = 'ooc'")" 1
check "show" 0 "$MMTUNE" show --db "$tmp/a.db"
grep -q "OOC_PANEL_K=4096" "$tmp/out" || { echo "FAIL: show lacks the ooc row"; cat "$tmp/out"; fail=1; }
check "show --json" 0 "$MMTUNE" show --db "$tmp/a.db" --json
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert 'OOC_PANEL_K=4096' in json.dumps(d)" "$tmp/out" ||
  { echo "FAIL: show --json"; fail=1; }
check "report" 0 "$MMTUNE" report --html "$tmp/r.html" --db "$tmp/a.db"
grep -q "16384" "$tmp/r.html" || { echo "FAIL: the report lacks the host problem"; fail=1; }
check "export" 0 "$MMTUNE" export --db "$tmp/a.db" -o "$tmp/a.csv"
check "import into a new database" 0 "$MMTUNE" import "$tmp/a.csv" --db "$tmp/b.db"
expect_eq "  best_view the same, the ooc row included" "$(q "$tmp/b.db" "select * from best_view")" \
  "$(q "$tmp/a.db" "select * from best_view")"
expect_eq "  the ooc best is the faster trial" \
  "$(q "$tmp/b.db" "select params from best_view where template = 'ooc'")" \
  "OOC_TILE_M=8192,OOC_TILE_N=8192,OOC_PANEL_K=4096,OOC_STREAMS=2"
exit $fail
