# clilib.sh - what the command-line tests (tests/cli_*.sh) share; sourced, not run: a
# scratch folder removed on exit, a failure flag, and
#   check DESCRIPTION EXPECTED_RC CMD...
# which runs CMD with its output in $tmp/out and $tmp/err and says ok or FAIL, and
#   expect_eq DESCRIPTION GOT WANTED, expect_same DESCRIPTION FILE1 FILE2,
#   expect_err DESCRIPTION PATTERN (the last check's stderr matches the extended regex),
#   skip WHY (exit 77, which CTest counts as skipped), need_sqlite3 and q DB SQL (the
#   sqlite3 shell's answer, waiting up to 10 s for a writer's lock rather than failing).
# The vendor library is a yardstick in these tests (MMTUNE_VENDOR=off: no vendor family
# best, libmmtuned serves its templates): they check the templates' tuning and serving on
# tiny problems, where the vendor wins. cli_vendor.sh checks the vendor family.
export MMTUNE_VENDOR=off
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# a test never writes the user's own database: what runs without --db or its own
# MMTUNE_DB (a program linked against the drop-in BLAS records its misses) writes here
export MMTUNE_DB="$tmp/default.db"
# ... nor holds the user's device locks (tuner/tune/device_lock.h): tests measure side by side
export XDG_CACHE_HOME="$tmp/xdg"
fail=0
check() {
  local what=$1 want=$2; shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  if [ "$rc" != "$want" ]; then
    echo "FAIL: $what: exit $rc, wanted $want"; cat "$tmp/out" "$tmp/err"; fail=1
  else
    echo "ok: $what"
  fi
}
expect_eq() {
  if [ "$2" = "$3" ]; then echo "ok: $1"; else echo "FAIL: $1: got '$2', wanted '$3'"; fail=1; fi
}
expect_same() {
  if cmp -s "$2" "$3"; then echo "ok: $1"; else echo "FAIL: $1"; diff "$2" "$3" | head -5; fail=1; fi
}
expect_err() {
  if grep -qE -- "$2" "$tmp/err"; then echo "ok: $1"; else echo "FAIL: $1: stderr lacks /$2/"; cat "$tmp/err"; fail=1; fi
}
skip() { echo "skip: $*"; exit 77; }
need_sqlite3() { command -v sqlite3 >/dev/null || skip "the sqlite3 shell is missing (scripts/install-deps.sh installs it)"; }
q() { sqlite3 -cmd '.timeout 10000' "$1" "$2"; }
