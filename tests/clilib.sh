# clilib.sh - what the command-line tests (tests/cli_*.sh) share; sourced, not run: a
# scratch folder removed on exit, a failure flag, and
#   check DESCRIPTION EXPECTED_RC CMD...
# which runs CMD with its output in $tmp/out and $tmp/err and says ok or FAIL.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
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
