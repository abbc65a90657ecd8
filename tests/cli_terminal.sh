#!/usr/bin/env bash
# cli_terminal.sh MMTUNE DATA - terminal manners. On a terminal (a pty that script(1) opens)
# the progress is a bar redrawn in place and the ratio is coloured; NO_COLOR (any value but
# empty) or TERM=dumb keeps the bar and drops every colour; --quiet leaves the table alone.
# Through a pipe or into a file there is no escape code and no carriage return: one line per
# problem. Each run reuses the first one's trials, so it takes a second or two.
set -u
MMTUNE=$1
DATA=$2
. "$(dirname "$0")/clilib.sh"
command -v script >/dev/null || skip "script (util-linux) is missing: no pty to test a terminal with"
esc=$'\033'
cr=$'\r'
args=(--device cpu --shapes "$DATA/shapes_tiny.yaml" --db "$tmp/t.db" --budget 2)
check "a tune through a pipe" 0 env -u NO_COLOR TERM=xterm "$MMTUNE" "${args[@]}"
cat "$tmp/err"
expect_eq "  one progress line per problem" "$(grep -cE '^\[[1-3]/3\] f[0-9]+ (row|col) [NT]{2} [0-9x]+: ' "$tmp/err")" 3
expect_eq "  and the start line and what to do next: nothing else" "$(wc -l <"$tmp/err")" 8
expect_eq "  what to do next" "$(grep -c '^next: `mmtune bench --device cpu --shapes' "$tmp/err")" 1
grep -qE 'compile [0-9.]+/s +measure [0-9.]+/s' "$tmp/err" || { echo "FAIL: the lines lack throughputs"; fail=1; }
grep -q "[$esc$cr]" "$tmp/out" "$tmp/err" && { echo "FAIL: escape codes or carriage returns off a terminal"; fail=1; }

# on a terminal: what it showed goes to $tmp/tty (the command's own exit code is script's)
on_tty() { script -qec "$(printf '%q ' "$@")" "$tmp/tty" </dev/null >/dev/null; }
check "a tune on a terminal" 0 on_tty env -u NO_COLOR TERM=xterm "$MMTUNE" "${args[@]}"
grep -q "$cr  \[" "$tmp/tty" || { echo "FAIL: no bar redrawn in place"; cat -v "$tmp/tty"; fail=1; }
grep -q "$esc\[3[12]m[0-9.]*x$esc\[0m" "$tmp/tty" || { echo "FAIL: the ratio is not coloured"; cat -v "$tmp/tty"; fail=1; }
for how in NO_COLOR=1 TERM=dumb; do
  check "  with $how" 0 on_tty env -u NO_COLOR TERM=xterm $how "$MMTUNE" "${args[@]}"
  grep -q "$cr  \[" "$tmp/tty" || { echo "FAIL: $how: no bar"; fail=1; }
  grep -q "$esc" "$tmp/tty" && { echo "FAIL: $how: colour all the same"; cat -v "$tmp/tty" | head; fail=1; }
done
check "  with NO_COLOR empty: colour" 0 on_tty env NO_COLOR= TERM=xterm "$MMTUNE" "${args[@]}"
grep -q "$esc" "$tmp/tty" || { echo "FAIL: an empty NO_COLOR took the colour away"; fail=1; }
check "  with --quiet" 0 on_tty env -u NO_COLOR TERM=xterm "$MMTUNE" "${args[@]}" --quiet
grep -q "$cr  \[\|result:\|^\[1/3\]" "$tmp/tty" && { echo "FAIL: --quiet shows progress"; cat -v "$tmp/tty"; fail=1; }
grep -q "^f32 row NN 64x48x40 " "$tmp/tty" || { echo "FAIL: --quiet lost the table"; fail=1; }
check "--quiet through a pipe" 0 "$MMTUNE" "${args[@]}" --quiet
expect_eq "  says nothing on stderr" "$(cat "$tmp/err")" ""
[ $fail = 0 ] && echo "cli_terminal: all passed"
exit $fail
