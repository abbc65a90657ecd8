#!/usr/bin/env bash
# subspace.sh - a search space narrowed to some values of its knobs, for an exhaustive tune
# of the part that matters (`mmtune --space OUT.yaml --strategy exhaustive --budget 0`):
#   bench/subspace.sh SPACE.yaml [NAME=VALUES | prune:EXPR | default:CONFIG]... > OUT.yaml
# NAME=VALUES replaces a knob's list ("BM=[128, 256]"); prune:EXPR adds a prune line;
# default:CONFIG replaces the default ("{BM: 128, ...}": it must be valid in the subspace).
# Values and expressions must not hold '#'. The space's shape-dependent `defaults:` entries are left out (they may name values the
# subspace lacks). The template path stays the space's.
set -euo pipefail
space=$1
shift
script=('/^defaults:/,/^[a-z]/{/^defaults:/d;/^  /d;/^    /d}')
for arg in "$@"; do
  case $arg in
    prune:*) script+=("s#^prune:\$#prune:\\n  - \"${arg#prune:}\"#") ;;
    default:*) script+=("s#^default:.*#default: ${arg#default:}#") ;;
    *=*) script+=("s#^  ${arg%%=*}: \\[[^]]*\\]#  ${arg%%=*}: ${arg#*=}#") ;;
    *) echo "subspace.sh: what is '$arg'?" >&2; exit 2 ;;
  esac
done
args=()
for s in "${script[@]}"; do args+=(-e "$s"); done
sed "${args[@]}" "$space"
