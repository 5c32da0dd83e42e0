#!/usr/bin/env bash
# Issue 13's table: for every `gen_uniformity` family and every setting (LLVM 22, LLVM 19,
# precise), instructions executed by the whole process of `converge -j 1 uniformity --format
# none` (valgrind's callgrind, independent of the machine's load) at MIN_BLOCKS (default 2000)
# doubling to MAX_BLOCKS (default 16000), and the worst growth per doubling; then the user time
# at TIME_BLOCKS (default 64000; GNU time, 10 ms resolution, best of TIME_REPS, default 3).
#
# Usage: scripts/bench-scaling-matrix.sh [FAMILY ...]
#   SETTINGS (default "llvm22 llvm19 precise"), SEED (default 1), CONVERGE_BIN (default
#   target/release/converge). One line per family and setting:
#   family setting M-instructions-per-size... worst-doubling user-seconds-at-TIME_BLOCKS
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind is required" >&2; exit 2; }
cargo build --release -q -p converge-cli -p converge-uniformity --example gen_uniformity
GEN=target/release/examples/gen_uniformity
BIN=${CONVERGE_BIN:-target/release/converge}
SEED=${SEED:-1}
OUT=${OUT:-build/bench-uniformity}
mkdir -p "$OUT"
ALL="dag irreducible chain-reducible chain-irreducible chain-nestedirreducible chain-selfloops
chain-switch chain-unreachable chain-noreturn chain-multiexit chain-mixed irrloop irrladder irrladder-up irrladder-loop irrladder-unreach nest exits
switch selfloops kernel grid diamonds exitnest datachain tokens manyfuncs widephi latchy randnest
tempchain earlyret interp switchnest shiftreg shuffled-exitnest shuffled-latchy shuffled-datachain
shuffled-tempchain shuffled-earlyret shuffled-switchnest shuffled-nest shuffled-dag
shuffled-irreducible shuffled-interp shuffled-tokens dag-dense dag-local dag-sparse"
flags() {
  case $1 in
    llvm22) echo "--mode llvm" ;;
    llvm19) echo "--mode llvm --llvm-version 19" ;;
    precise) echo "--mode precise" ;;
  esac
}
input() {
  local f="$OUT/$1-s$SEED-$2.ll"
  [ -s "$f" ] || $GEN "$1" "$2" "$SEED" >"$f"
  echo "$f"
}
for fam in ${@:-$ALL}; do
  for set in ${SETTINGS:-llvm22 llvm19 precise}; do
    line="$fam $set"
    prev=""
    worst=0
    n=${MIN_BLOCKS:-2000}
    while [ "$n" -le "${MAX_BLOCKS:-16000}" ]; do
      f=$(input "$fam" "$n")
      # shellcheck disable=SC2046
      ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BIN" -j 1 uniformity \
        --format none $(flags "$set") "$f" 2>&1 >/dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
      line="$line $(awk "BEGIN { printf \"%.1f\", $ir / 1e6 }")"
      if [ -n "$prev" ]; then
        worst=$(awk "BEGIN { r = $ir / $prev; print (r > $worst) ? r : $worst }")
      fi
      prev=$ir
      n=$((n * 2))
    done
    f=$(input "$fam" "${TIME_BLOCKS:-64000}")
    best=""
    for _ in $(seq "${TIME_REPS:-3}"); do
      # shellcheck disable=SC2046
      u=$( { /usr/bin/time -f %U "$BIN" -j 1 uniformity --format none $(flags "$set") "$f" >/dev/null; } 2>&1 | tail -1)
      if [ -z "$best" ] || awk "BEGIN { exit !($u < $best) }"; then best=$u; fi
    done
    echo "$line $(awk "BEGIN { printf \"%.2fx\", $worst }") ${best}s"
  done
done
