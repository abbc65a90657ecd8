#!/usr/bin/env bash
# fuzz.sh - libFuzzer on the parsers of user input (fuzz/fuzz_parsers.c: shapes files,
# search spaces with their expressions evaluated, the expression language, problem texts
# as --problem and imports give them, files of result rows as mmtune import reads them),
# built with
# clang and AddressSanitizer + UndefinedBehaviorSanitizer, seeded with the project's own
# YAML files and every expression of its spaces. Runs FUZZ_SECONDS (default 20) and prints the
# executions and what it found; exits non-zero on a crash, a leak or undefined behaviour
# (the input that did it is left in build-fuzz/). `make test` runs a short one; a longer
# run: FUZZ_SECONDS=600 scripts/fuzz.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=${BUILD_FUZZ:-build-fuzz}
seconds=${FUZZ_SECONDS:-20}
mkdir -p "$out/seeds" "$out/corpus"
clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Iinclude -Isrc -Ituner -Ituner/transfer -Ituner/report \
  $(pkg-config --cflags yaml-0.1) fuzz/fuzz_parsers.c src/expr.c src/space.c src/space_load.c src/shapes.c src/yaml_util.c \
  src/problem.c src/device.c src/err.c src/xfer_row.c tuner/transfer/rows.c tuner/transfer/rows_value.c tuner/transfer/rows_csv.c tuner/transfer/rows_json.c \
  tuner/report/json_out.c tuner/report/utf8.c src/trial_status.c -o "$out/fuzz_parsers" $(pkg-config --libs yaml-0.1) -lcsv -lm
i=0
for f in tests/data/*.yaml examples/*.yaml bench/*.yaml; do
  { printf '\000'; cat "$f"; } >"$out/seeds/shapes-$((i++))"
done
for f in search_spaces/*.yaml tests/data/space_*.yaml; do
  { printf '\001'; cat "$f"; } >"$out/seeds/space-$((i++))"
done
grep -ho '"[^"]*"' search_spaces/*.yaml | tr -d '"' | sort -u | while read -r e; do
  { printf '\002'; printf '%s' "$e"; } >"$out/seeds/expr-$((i++))"
done
for p in "f32 row NN 64x48x40" "bf16->f32 col TN 4097x4096x1" "tf32 row NT 1x1x1" "f64 col TT 3x5x7"; do
  { printf '\003'; printf '%s' "$p"; } >"$out/seeds/problem-$((i++))"
done
for f in tests/data/export_v*.csv tests/data/export_v*.json; do
  { printf '\004'; cat "$f"; } >"$out/seeds/rows-$((i++))"
done
"$out/fuzz_parsers" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$out/" \
  "$out/corpus" "$out/seeds" >"$out/log" 2>&1 || { tail -40 "$out/log"; exit 1; }
runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/log" | grep -o '[0-9]*$')
echo "fuzz_parsers: $runs executions in ${seconds} s, no crash, leak or undefined behaviour"
