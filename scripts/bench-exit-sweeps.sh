#!/usr/bin/env bash
# Executed instructions (valgrind's callgrind, whole process of `converge -j 1 uniformity
# --format none`, load-independent) of the one-shape families of issue 13 in llvm mode and precise
# mode, size by size, with the growth per doubling; optionally against an older binary.
#
# Usage: scripts/bench-exit-sweeps.sh [FAMILY ...]      (default: nest exits)
#   SIZES (default "2000 4000 8000 16000 32000 64000"), SEED (default 1), MODES (default
#   "llvm precise"), CONVERGE_BIN (default target/release/converge), OLD_BIN (optional: a second
#   binary measured on the same inputs, printed first on each line).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind is required" >&2; exit 2; }
cargo build --release -q -p converge-cli -p converge-uniformity --example gen_uniformity
GEN=target/release/examples/gen_uniformity
BIN=${CONVERGE_BIN:-target/release/converge}
OLD=${OLD_BIN:-}
SEED=${SEED:-1}
OUT=${OUT:-build/bench-uniformity}
mkdir -p "$OUT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count() { # BINARY MODE FILE -> millions of instructions
  local mode=()
  [ "$2" = precise ] && mode=(--mode precise)
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$1" -j 1 uniformity --format none \
    "${mode[@]}" "$3" 2>"$tmp/err" >/dev/null
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/err"
}
m() { awk "BEGIN { printf \"%.1f\", $1 / 1e6 }"; }
for fam in "${@:-nest exits}"; do
  for mode in ${MODES:-llvm precise}; do
    echo "== $fam, $mode mode, seed $SEED"
    prev=""
    for n in ${SIZES:-2000 4000 8000 16000 32000 64000}; do
      f="$OUT/$fam-s$SEED-$n.ll"
      [ -s "$f" ] || $GEN "$fam" "$n" "$SEED" >"$f"
      line="blocks $n:"
      if [ -n "$OLD" ]; then
        line="$line old $(m "$(count "$OLD" "$mode" "$f")") M,"
      fi
      ir=$(count "$BIN" "$mode" "$f")
      line="$line $(m "$ir") M instructions"
      [ -n "$prev" ] && line="$line, x$(awk "BEGIN { printf \"%.2f\", $ir / $prev }") per doubling"
      echo "$line"
      prev=$ir
    done
  done
done
