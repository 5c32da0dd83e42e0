#!/usr/bin/env bash
# Whole-process instructions (valgrind's callgrind, independent of the machine's load) of
# `converge -j 1 uniformity --format none --mode MODE` on one function of every generator family
# at BLOCKS blocks (default 8000, seed SEED, default 1) and on the benchmark module
# (`gen_uniformity module 300 7 45`), in llvm and precise mode, for one or two binaries.
#
# Usage: scripts/bench-scaling-families.sh [OLD_BINARY]
#   NEW binary: CONVERGE_BIN (default target/release/converge); FAMILIES overrides the list.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind is required" >&2; exit 2; }
cargo build --release -q -p converge-cli -p converge-uniformity --example gen_uniformity
GEN=target/release/examples/gen_uniformity
NEW=${CONVERGE_BIN:-target/release/converge}
OLD=${1:-}
N=${BLOCKS:-8000}
SEED=${SEED:-1}
OUT=${OUT:-build/bench-uniformity}
mkdir -p "$OUT"
FAMILIES=${FAMILIES:-"dag irreducible chain-irreducible chain-nestedirreducible chain-mixed chain-reducible chain-noreturn irrloop nest exits switch selfloops module"}
ir() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
m() { awk "BEGIN { printf \"%.1f\", $1 / 1e6 }"; }
echo "family blocks mode ${OLD:+old-M }new-M${OLD:+ new/old}"
for fam in $FAMILIES; do
  if [ "$fam" = module ]; then
    f="$OUT/module300-7-45.ll"
    [ -f "$f" ] || $GEN module 300 7 45 >"$f"
  else
    f="$OUT/$fam-s$SEED-$N.ll"
    [ -f "$f" ] || $GEN "$fam" "$N" "$SEED" >"$f"
  fi
  for mode in llvm precise; do
    b=$(ir "$NEW" -j 1 uniformity --format none --mode $mode "$f")
    if [ -n "$OLD" ]; then
      a=$(ir "$OLD" -j 1 uniformity --format none --mode $mode "$f")
      echo "$fam $N $mode $(m "$a") $(m "$b") $(awk "BEGIN { printf \"%.2f\", $b / $a }")"
    else
      echo "$fam $N $mode $(m "$b")"
    fi
  done
done
