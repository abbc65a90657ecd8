#!/usr/bin/env bash
# cli_gpu_faulty.sh - cli_faulty.sh on GPU 0 (skipped without a GPU).
exec bash "$(dirname "$0")/cli_faulty.sh" "$1" "$2" 0
