#!/usr/bin/env bash
# cli_bad_db.sh - databases mmtune must not use: a corrupt one (pages overwritten), a
# truncated one, a file that is not SQLite, a read-only one (for tuning; an application may
# read it) and one of a newer schema version are each refused by mmtune with a message that
# names the file and exit 1, by mmt_open likewise (through `mmtune bench`, which opens it as
# an application does), and none of them is changed: the same bytes after as before. The
# default database under a HOME that others may write is refused, its folder named.
set -u
MMTUNE=$1
. "$(dirname "$0")/clilib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 is not installed: skipped"; exit 77; }
P="f32 row NN 24x20x16"
"$MMTUNE" --device cpu --problem "$P" --db "$tmp/good.db" --budget 2 --quiet >/dev/null 2>&1 ||
  { echo "FAIL: a good database to start from"; exit 1; }
size=$(stat -c %s "$tmp/good.db")

cp "$tmp/good.db" "$tmp/corrupt.db" # every page but the header overwritten with noise
head -c $((size - 100)) /dev/urandom | dd of="$tmp/corrupt.db" bs=1 seek=100 conv=notrunc status=none
head -c $((size / 2)) "$tmp/good.db" >"$tmp/truncated.db"
printf 'problems:\n  - {m: 1, n: 1, k: 1}\n' >"$tmp/text.db"
cp "$tmp/good.db" "$tmp/newer.db" && sqlite3 "$tmp/newer.db" "PRAGMA user_version = 99"
cp "$tmp/good.db" "$tmp/readonly.db" && chmod 444 "$tmp/readonly.db"

kinds="corrupt truncated text newer readonly"
# root writes a 0444 file: as root the read-only case runs as nobody, in a folder nobody can
# enter but not write
as=()
if [ "$(id -u)" = 0 ]; then
  mkdir "$tmp/ro" && mv "$tmp/readonly.db" "$tmp/ro/" && chmod 755 "$tmp" "$tmp/ro"
  as=(setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent MMTUNE_CACHE_DIR=/nonexistent)
  if ! command -v setpriv >/dev/null || ! "${as[@]}" test -x "$MMTUNE" -a -r "$tmp/ro/readonly.db"; then
    kinds=${kinds% readonly}; echo "nobody cannot run $MMTUNE here: the read-only case is not tried"
  fi
fi
for kind in $kinds; do
  db="$tmp/$kind.db"
  run=()
  [ "$kind" = readonly ] && { run=("${as[@]}"); [ ${#as[@]} -gt 0 ] && db="$tmp/ro/readonly.db"; }
  before=$(sha256sum "$db" | cut -c1-64)
  check "tune refuses the $kind database" 1 "${run[@]}" "$MMTUNE" --device cpu --problem "$P" --db "$db" --budget 2
  grep -q "$db" "$tmp/err" || { echo "FAIL: the message does not name $db:"; cat "$tmp/err"; fail=1; }
  [ "$kind" = readonly ] || check "bench refuses the $kind database" 1 "$MMTUNE" bench --device cpu --problem "$P" --db "$db"
  # the cause, not "not an error" or a schema upgrade to ask for
  case $kind in corrupt | truncated) expect_err "it says the $kind file is damaged" 'malformed' ;; esac
  case $kind in corrupt | truncated)
    check "show refuses the $kind database" 1 "$MMTUNE" show --db "$db"
    expect_err "show says the $kind file is damaged" 'malformed' ;;
  esac
  [ "$(sha256sum "$db" | cut -c1-64)" = "$before" ] || { echo "FAIL: the $kind database was changed"; fail=1; }
  [ ! -e "$db-wal" ] || [ ! -s "$db-wal" ] || { echo "FAIL: the $kind database got a WAL"; fail=1; }
done

# a file that is no database at all: each reader says so in plain words, and writes nothing
head -c 20000 /dev/urandom >"$tmp/noise.db"
for cmd in "export --db $tmp/noise.db -o $tmp/noise.csv" "report --html $tmp/noise.html --db $tmp/noise.db" \
  "merge $tmp/noise.db -o $tmp/noise-merged.db" "show --db $tmp/noise.db"; do
  check "${cmd%% *} of a file that is no database" 1 "$MMTUNE" $cmd
  expect_err "  says it is not an SQLite database" "noise.db: .*not an SQLite database"
done
[ ! -e "$tmp/noise.csv" ] && [ ! -e "$tmp/noise.html" ] && [ ! -e "$tmp/noise-merged.db" ] ||
  { echo "FAIL: a reader of a file that is no database wrote something"; fail=1; }

# the default database under a HOME others may write: refused with the folder named, nothing made
mkdir -p "$tmp/open-home" && chmod 0777 "$tmp/open-home"
check "the default database under a HOME others may write" 2 \
  env -u MMTUNE_DB -u XDG_CACHE_HOME HOME="$tmp/open-home" "$MMTUNE" show
expect_err "  it names the folder others may write" "$tmp/open-home, above"
[ ! -e "$tmp/open-home/.cache/mmtune/mmtune.db" ] || { echo "FAIL: a database was made there"; fail=1; }
exit $fail
