#!/usr/bin/env bash
# cli_levels.sh MMTUNE DATA - the levels round on the CPU, with a space that lets Strassen
# levels run on small problems (tests/data/space_strassen.yaml): each problem's classic
# winner is measured side by side with 1 and 2 levels, every result a verified trial with
# its error, the winner is the database's best and the table's; the same command again
# keeps it without measuring; --classic-only measures no levels. Then libmmtuned serves a
# tuned problem through mmtune bench: the classic winner by default, its level under
# MMTUNE_ALGORITHM=strassen, both verified (not under the sanitizers: too slow there).
set -u
MMTUNE=$1
DATA=$2
. "$(dirname "$0")/clilib.sh"
need_sqlite3
cat >"$tmp/shapes.yaml" <<'YAML'
problems:
  - {m: 96, n: 80, k: 72}
  - {m: 70, n: 90, k: 66, dtype: f64, layout: col, trans_b: true}
YAML
db=$tmp/l.db
tune() { check "$1" 0 "$MMTUNE" --device cpu --shapes "$tmp/shapes.yaml" --space "$DATA/space_strassen.yaml" \
  --db "$db" --budget 2 "${@:2}"; cp "$tmp/out" "$tmp/table"; }

tune "a tune with the levels round"
for p in 'f32 row NN 96x80x72' 'f64 col NT 70x90x66'; do
  grep -qE "^$p +levels: side by side over [0-9]+ rounds: classic .*1 level .*2 levels .* kept" "$tmp/table" ||
    { echo "FAIL: the table has no levels round for $p"; cat "$tmp/table"; fail=1; }
done
expect_eq "three levels-round trials per problem, all verified" \
  "$(q "$db" "select count(*), sum(status = 'ok'), sum(rel_error > 0) from trial where message like 'levels round, %'")" \
  "6|6|6"
expect_eq "one chosen per problem" "$(q "$db" "select count(*) from trial where message like 'levels round, %; chosen'")" 2
# the vendor round then times the chosen configuration beside OpenBLAS: its trial is the best
expect_eq "the chosen configurations are the bests" \
  "$(q "$db" "select count(*) from best b join trial t on t.problem_id = b.problem_id and t.config_id = b.config_id
              where t.message like 'levels round, %; chosen'")" 2
expect_eq "the table names the bests" \
  "$(q "$db" "select group_concat(params, ' ') from (select c.params from best b join config c on c.id = b.config_id order by c.params)")" \
  "$(sed -n '/^problem /,/^vendor:/p' "$tmp/table" | grep -oE 'ISA=[^ ]+' | sort | tr '\n' ' ' | sed 's/ $//')"
searched="select count(*) from trial where message not like 'vendor round%'" # a rerun times the winners beside the vendor again
trials=$(q "$db" "$searched")

tune "the same command again"
grep -q "kept from an earlier run" "$tmp/table" || { echo "FAIL: the rerun did not keep the earlier choice"; fail=1; }
expect_eq "the rerun measured nothing" "$(q "$db" "$searched")" "$trials"

check "--classic-only" 0 "$MMTUNE" --device cpu --problem "f32 row NT 48x40x56" --space "$DATA/space_strassen.yaml" \
  --db "$db" --budget 1 --classic-only
grep -q "levels:" "$tmp/out" && { echo "FAIL: --classic-only ran a levels round"; fail=1; }
expect_eq "no levels-round trials added" \
  "$(q "$db" "select count(*) from trial where message like 'levels round, %'")" 6

# Under the sanitizers the host reference of a 2048^3 bench takes minutes (test_api covers
# the policy there)
if ldd "$MMTUNE" | grep -q -E 'lib(a|t|ub)san'; then
  echo "mmtune is built with sanitizers: the bench through libmmtuned is left out"
  [ $fail = 0 ] && echo "cli_levels: all passed"
  exit $fail
fi
# libmmtuned serves what was tuned: the f32 problem's best, made a 2048^3 problem's (the
# built-in space lets a level run from there) with a level, the classic winner by default,
# the level under MMTUNE_ALGORITHM=strassen
echo 'problems: [{m: 2048, n: 2048, k: 2048}]' >"$tmp/big.yaml"
q "$db" "update problem set m = 2048, n = 2048, k = 2048 where dtype = 'f32';
         insert or ignore into config (template_id, params)
           select c.template_id, replace(c.params, ',LEVELS=2', '') || ',LEVELS=1' from best b
           join config c on c.id = b.config_id join problem p on p.id = b.problem_id
           where p.m = 2048 and c.params not like '%LEVELS=1%';
         update best set config_id = (select c2.id from config c join config c2 on c2.template_id = c.template_id
                                      and c2.params = replace(c.params, ',LEVELS=2', '') || ',LEVELS=1'
                                      where c.id = best.config_id)
           where problem_id in (select id from problem where m = 2048)
             and config_id in (select id from config where params not like '%LEVELS=1%');" 2>"$tmp/sqlerr" ||
  { echo "FAIL: giving the best a level: $(cat "$tmp/sqlerr")"; fail=1; }
bench() { check "$1" 0 env "${@:2}" "$MMTUNE" bench --device cpu --shapes "$tmp/big.yaml" --db "$db"; }
bench "bench, the classic default" MMTUNE_ALGORITHM=classic
config() { grep -A1 -E '^f32 row NN 2048x2048x2048 ' "$tmp/out" | sed -n 's/^ *config: //p' | head -1; }
config | grep -q '^ISA=' && ! grep -q 'LEVELS' "$tmp/out" ||
  { echo "FAIL: the classic default did not run the classic winner"; cat "$tmp/out"; fail=1; }
bench "bench under MMTUNE_ALGORITHM=strassen (verified within the bound for a level)" MMTUNE_ALGORITHM=strassen
config | grep -q ',LEVELS=1$' || { echo "FAIL: the level did not run"; cat "$tmp/out"; fail=1; }
[ $fail = 0 ] && echo "cli_levels: all passed"
exit $fail
