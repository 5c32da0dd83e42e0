#!/usr/bin/env bash
# Prints one md5 per (subcommand, format, input): compare two builds' outputs byte for byte.
# Usage: scripts/cli-outputs.sh BINARY INPUT.ll...   (stdout and exit code of each run)
set -uo pipefail
bin=$1; shift
for f in "$@"; do
  for cmd in "stats --format text" "stats --format json" \
             "cycles --format text" "cycles --format llvm" "cycles --format json" \
             "cycles --format llvm --llvm 19" \
             "uniformity --format text" "uniformity --format llvm" "uniformity --format json" \
             "uniformity --format llvm --llvm-version 19" \
             "verify --format text" "verify --format llvm" "verify --format json" \
             "explain --format text" "explain --format json" \
             "dot" "dot --uniformity --instructions" \
             "simulate --format text" "simulate --format json"; do
    # shellcheck disable=SC2086
    out=$("$bin" $cmd "$f" 2>/dev/null; echo "exit=$?")
    echo "$(printf '%s' "$out" | md5sum | cut -c1-12)  $cmd  $f"
  done
done
