#!/bin/sh
# fake_mmtune.sh - stands in for mmtune in tests/test_autotune.c: writes its arguments and
# the descriptors it holds to $FAKE_MMTUNE_OUT, then waits (60 s at most) until
# $FAKE_MMTUNE_OUT.stop exists, holding what it inherited (the problem's lock) meanwhile.
out=$FAKE_MMTUNE_OUT
{
  printf '%s\n' "$*"
  ls /proc/$$/fd | sort -n | tr '\n' ' '
  echo
} >"$out.tmp"
mv "$out.tmp" "$out"
i=0
while [ ! -e "$out.stop" ] && [ $i -lt 600 ]; do
  sleep 0.1
  i=$((i + 1))
done
