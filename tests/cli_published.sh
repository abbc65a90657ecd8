#!/usr/bin/env bash
# cli_published.sh MMTUNE DATA - a tuned database published for others to read: its owner's
# file (WAL mode, 0644) in a shared sticky folder, read by another user (nobody, by setpriv,
# as root only): mmtune show lists its best, mmtune bench serves the tuned entry through
# libmmtuned, and the reader leaves nothing beside the file (no -shm or -wal of its own,
# which the owner's next tune could not write).
set -u
MMTUNE=$1
DATA=$2
. "$(dirname "$0")/clilib.sh"
need_sqlite3
[ "$(id -u)" = 0 ] || skip "another user is needed to read the database: run as root"
command -v setpriv >/dev/null || skip "setpriv is missing"
P="f32 row NN 24x20x16"
shared="$tmp/shared"
mkdir "$shared" && chmod 1777 "$shared" && chmod 755 "$tmp"
check "the owner tunes" 0 "$MMTUNE" --device cpu --problem "$P" --budget 2 --db "$shared/p.db"
chmod 644 "$shared/p.db"
expect_eq "in WAL mode" "$(q "$shared/p.db" "pragma journal_mode")" wal
as=(setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent MMTUNE_CACHE_DIR="$shared/reader-kernels")
"${as[@]}" test -x "$MMTUNE" || skip "nobody cannot run $MMTUNE here"
check "another user shows it" 0 "${as[@]}" "$MMTUNE" show --db "$shared/p.db"
grep -q "24  20  16" "$tmp/out" && echo "ok: the best is listed" || { echo "FAIL: no best listed"; cat "$tmp/out"; fail=1; }
check "another user benches it through libmmtuned" 0 "${as[@]}" "$MMTUNE" bench --device cpu --problem "$P" \
  --db "$shared/p.db"
grep -q "note: tuned" "$tmp/out" && echo "ok: the tuned entry serves" ||
  { echo "FAIL: not served tuned"; cat "$tmp/out" "$tmp/err"; fail=1; }
expect_eq "nothing of the reader's beside the file" "$(ls "$shared" | grep -c '^p.db-')" 0
check "the owner tunes into it again" 0 "$MMTUNE" --device cpu --problem "f64 row NN 24x20x16" --budget 2 \
  --db "$shared/p.db"
exit $fail
