#!/usr/bin/env bash
# Do two converge binaries print the same? Runs 13 command lines (stats, cycles, uniformity,
# verify and explain in their formats, LLVM 19's uniformity printer, dot, insert-tokens) on each
# given .ll file with both binaries and compares stdout, stderr and the exit code.
# Usage: scripts/compare-cli-outputs.sh OLD_BINARY NEW_BINARY FILE.ll...
# Prints each differing command line and "compared N, differ M"; exits 1 when any differ.
set -uo pipefail
old=$1 new=$2
shift 2
n=0 d=0
cmds=("stats" "stats --format json" "cycles" "cycles --format json" "uniformity"
  "uniformity --format json" "uniformity --format llvm --llvm-version 19" "verify"
  "verify --format json" "explain" "explain --format json" "dot --uniformity" "insert-tokens")
for f in "$@"; do
  for c in "${cmds[@]}"; do
    # shellcheck disable=SC2086 # the command line is split into words on purpose
    a=$("$old" $c "$f" 2>&1; echo "exit $?")
    # shellcheck disable=SC2086
    b=$("$new" $c "$f" 2>&1; echo "exit $?")
    n=$((n + 1))
    if [ "$a" != "$b" ]; then
      d=$((d + 1))
      echo "differ: converge $c $f"
    fi
  done
done
echo "compared $n, differ $d"
[ "$d" = 0 ]
