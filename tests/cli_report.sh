#!/usr/bin/env bash
# cli_report.sh MMTUNE DATA - mmtune report: a page of a real tune (and of the shipped
# landscapes, an older schema, merged in: three devices) is one well-formed,
# self-contained file whose SVGs parse; it names every problem with the ratio best_view
# pairs, every configuration measured and the ceilings' sources; the database is only
# read; bad input is refused with nothing written. Then headless Chromium renders it: the
# screenshot is not blank and the page's script ran without an error. The rendering skips
# (77), saying why, where no Chromium is installed (scripts/install-deps.sh installs
# chromium-headless-shell where it can).
set -u
MMTUNE=$1
DATA=$2
. "$(dirname "$0")/clilib.sh"
need_sqlite3
command -v python3 >/dev/null || skip "python3 is missing (scripts/install-deps.sh installs it with python3-numpy)"

check "no --html" 2 "$MMTUNE" report --db "$tmp/none.db"
expect_err "  says what it needs" "report needs --html FILE"
check "an option report does not take" 2 "$MMTUNE" report --html "$tmp/x.html" --budget 3
check "a database that is not there" 1 "$MMTUNE" report --html "$tmp/x.html" --db "$tmp/none.db"
[ -e "$tmp/x.html" ] || [ -e "$tmp/none.db" ] && { echo "FAIL: bad input wrote a file"; fail=1; }

# three devices: the shipped landscapes (schema 2: an AMD CPU, an H100) and this machine's CPU
check "merge the landscapes" 0 "$MMTUNE" merge "$DATA/landscape_cpu.db" "$DATA/landscape_gpu.db" -o "$tmp/r.db"
check "a tiny tune into it" 0 "$MMTUNE" --device cpu --shapes "$DATA/shapes_tiny.yaml" --db "$tmp/r.db" --budget 3 \
  --quiet
before=$(sha256sum "$tmp/r.db" "$DATA/landscape_cpu.db" | cut -c1-64)
check "report" 0 "$MMTUNE" report --html "$tmp/r.html" --db "$tmp/r.db"
expect_err "  says what it wrote" "wrote $tmp/r.html: 3 devices, 17 problems"
expect_eq "  the database is only read" "$(sha256sum "$tmp/r.db" "$DATA/landscape_cpu.db" | cut -c1-64)" "$before"
check "  the page and its SVGs are well-formed and stand alone" 0 python3 "$DATA/page_check.py" "$tmp/r.html"
cat "$tmp/out"
page=$tmp/r.html
# this host's CPU is the device the tiny tune added (its name may be the landscape's too: AMD EPYC)
host_cpu=$(q "$tmp/r.db" "select name from device where backend = 'cpu' order by id desc limit 1")
for device in "AMD EPYC" "NVIDIA H100 80GB HBM3" "$host_cpu"; do
  grep -q "<h2>$device <span" "$page" || { echo "FAIL: no section for $device"; fail=1; }
done
# each tuned problem with its ratio: best_view's pair of figures, timed side by side
rows=$(tr -d '\n' <"$page" | sed 's|</tr>|</tr>\n|g')
n=0
while IFS='|' read -r name ratio; do
  n=$((n + 1))
  grep -q "<td>$name</td>.*<td class=\"num [a-z]*\">$ratio</td>" <<<"$rows" ||
    { echo "FAIL: the page lacks $name with ratio $ratio"; fail=1; }
done < <(q "$tmp/r.db" "select p.mode || ' ' || p.layout || ' ' || iif(p.trans_a, 'T', 'N') || iif(p.trans_b, 'T', 'N')
                              || ' ' || p.m || 'x' || p.n || 'x' || p.k, printf('%.2fx', b.gflops / l.gflops)
                       from best b join problem p on p.id = b.problem_id
                       join baseline l on l.trial_id = b.trial_id and l.problem_id = b.problem_id")
expect_eq "the ratio of every problem timed beside the vendor" "$n" 3
# the landscapes' vendor figures were timed alone: no ratio of them
expect_eq "older vendor figures make no ratio" "$(grep -c '<td>not timed beside it: no ratio</td>' "$page")" 14
# every configuration the search measured is a dot of its problem's spread
expect_eq "a dot per configuration measured" "$(grep -c '<circle class="fam' "$page")" \
  "$(q "$tmp/r.db" "select count(distinct t.device_id || ' ' || t.problem_id || ' ' || t.config_id) from trial t
                    where t.status = 'ok' and coalesce(t.message, '') not like '% round:%'")"
grep -q "f32 peak: 2 CPUs x [0-9]* MHz x 64 f32 FLOP per clock\|f32 peak: [0-9]* CPUs x [0-9]* MHz x [0-9]* f32 FLOP" \
  "$page" || { echo "FAIL: this CPU's peak is not derived from its row"; fail=1; }
grep -q "f32 peak: the device row records no clock" "$page" ||
  { echo "FAIL: the landscape's CPU, whose row has no clock, does not say so"; fail=1; }
grep -q "<select class=\"problem-select\"" "$page" || { echo "FAIL: no problem selector"; fail=1; }
# the bandwidth of this host's CPU is measured; another's is not drawn, the record having none
expect_eq "this host's bandwidth measured" "$(grep -c "memory bandwidth: measured by this mmtune report on this host" "$page")" 1
expect_eq "another CPU's not drawn" "$(grep -c "memory bandwidth: no record holds a CPU&#39;s .*; not drawn" "$page")" 1

check "report --device cpu" 0 "$MMTUNE" report --html - --db "$tmp/r.db" --device cpu --quiet
expect_eq "  the devices of this CPU's name" "$(grep -c '<section class="device"' "$tmp/out")" \
  "$(q "$tmp/r.db" "select count(*) from device where name = '$host_cpu'")"
expect_eq "  --quiet says nothing" "$(cat "$tmp/err")" ""
: >"$tmp/empty.db"
check "an empty database" 0 "$MMTUNE" report --html "$tmp/empty.html" --db "$tmp/empty.db"
grep -q "nothing tuned yet" "$tmp/empty.html" || { echo "FAIL: the empty page does not say so"; fail=1; }

# --- rendered by headless Chromium -------------------------------------------------------
chrome=$(command -v chromium-headless-shell || command -v chromium || true)
if [ -z "$chrome" ]; then
  [ $fail = 0 ] || exit 1
  skip "no Chromium (chromium-headless-shell or chromium) to render the page; the checks above passed"
fi
flags=(--no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$tmp/chrome" --enable-logging=stderr --v=0)
[ "$(basename "$chrome")" = chromium ] && flags+=(--headless)
check "Chromium takes a screenshot" 0 timeout 120 "$chrome" "${flags[@]}" --window-size=1000,1400 \
  --screenshot="$tmp/r.png" "file://$page"
grep -E ':CONSOLE|Uncaught' "$tmp/err" && { echo "FAIL: the page wrote to the console (a script error)"; fail=1; }
check "  which is not blank" 0 python3 "$DATA/png_ink.py" "$tmp/r.png"
cat "$tmp/out"
read -r colours _ share _ <"$tmp/out"
awk -v c="$colours" -v s="${share%\%}" 'BEGIN { exit !(c >= 16 && s >= 2) }' ||
  { echo "FAIL: the screenshot shows almost nothing ($colours colours, $share not white)"; fail=1; }
check "Chromium runs the page's script" 0 timeout 120 "$chrome" "${flags[@]}" --dump-dom "file://$page"
grep -q '<body data-script="ok">' "$tmp/out" && grep -q 'script: ok' "$tmp/out" ||
  { echo "FAIL: the script did not end well: $(grep -o 'script[^<]*' "$tmp/out" | tail -1)"; fail=1; }
grep -E ':CONSOLE|Uncaught' "$tmp/err" && { echo "FAIL: the page wrote to the console (a script error)"; fail=1; }
# the selector shows one problem of each device, the first
expect_eq "  one problem shown per device" "$(grep -c '<section class="problem"[^>]*data-device="[0-9]*">' "$tmp/out")" 3
[ $fail = 0 ] && echo "cli_report: all passed"
exit $fail
