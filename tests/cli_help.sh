#!/usr/bin/env bash
# cli_help.sh MMTUNE DATA - the documentation covers the command line: every command (the
# table of commands in tuner/cli/options.c and those of tuner/transfer/transfer.c) and every option (the
# long and short options of each getopt table) appears in `mmtune --help` and in the man
# page docs/mmtune.1, and neither names an option that does not exist.
set -u
MMTUNE=$1
DATA=$2
. "$(dirname "$0")/clilib.sh"
src=$(cd "$DATA/../.." && pwd)
tables=("$src/tuner/cli/options.c" "$src/tuner/transfer/transfer.c")
man=$src/docs/mmtune.1
check "--help" 0 "$MMTUNE" --help
help=$(cat "$tmp/out")

# the options of the source: {"name", no_argument, ...} rows, and getopt_long's short letters
options=$(grep -ohE '\{"[a-z][a-z-]*", *(no|required|optional)_argument' "${tables[@]}" | sed -E 's/\{"([^"]*)".*/--\1/'
          grep -ohE 'getopt_long\(argc, argv, "[^"]*"' "${tables[@]}" | sed -E 's/.*"([^"]*)"/\1/; s/://g' | grep -o . |
            sed 's/^/-/')
options=$(sort -u <<<"$options")
commands=$(grep -ohE '\{"[a-z]+", "[A-Za-z]*"\}' "$src/tuner/cli/options.c" | sed -E 's/\{"([a-z]+)".*/\1/'
           grep -A3 '^int mmt_transfer_command' "$src/tuner/transfer/transfer.c" | grep -oE 'strcmp\(name, "[a-z]+"\)' |
             sed -E 's/.*"([a-z]+)".*/\1/')
expect_eq "the tables name options" "$([ "$(wc -l <<<"$options")" -ge 25 ] && echo yes)" yes
expect_eq "the tables name commands" "$(wc -l <<<"$commands")" 8

# the man page's text with its escapes read: \- is -, \f. changes the font
man_text=$(sed -E 's/\\-/-/g; s/\\f[BIRP]//g' "$man")
synopsis=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' <<<"$man_text")
missing=
for opt in $options; do
  grep -qE -- "(^|[^a-z-])$opt([^a-z-]|$)" <<<"$help" || missing+=" --help:$opt"
  grep -qE -- "(^|[^a-z-])$opt([^a-z-]|$)" <<<"$man_text" || missing+=" man:$opt"
done
for cmd in $commands; do
  grep -qE "^ *(usage: )?mmtune \[?$cmd\]? " <<<"$help" || missing+=" --help:$cmd"
  grep -qw -- "$cmd" <<<"$synopsis" || missing+=" man:$cmd"
done
expect_eq "every option and command documented in --help and the man page" "${missing# }" ""
# and nothing documented that is not there
extra=
for opt in $(grep -oE -- '(^|[ ,[(])--?[a-z][a-z-]*' <<<"$help" | grep -oE -- '--?[a-z][a-z-]*' | sort -u) \
           $(grep -oE -- '(^|[ ,[(])--?[a-z][a-z-]*' <<<"$synopsis" | grep -oE -- '--?[a-z][a-z-]*' | sort -u); do
  grep -qx -- "$opt" <<<"$options" || extra+=" $opt"
done
expect_eq "no option documented that does not exist" "${extra# }" ""
[ $fail = 0 ] && echo "cli_help: all passed"
exit $fail
