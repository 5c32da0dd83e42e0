#!/usr/bin/env bash
# Growth per doubling of the uniformity analysis measured in executed instructions (valgrind's
# callgrind, whole process of `converge -j 1 uniformity --format none`), which unlike wall-clock
# time does not depend on the machine's load. One function per size, doubling from 1,000 blocks.
#
# Usage: scripts/bench-scaling-instructions.sh [FAMILY ...]
#   FAMILY: a `gen_uniformity` kind (dag, irreducible, chain-noreturn, ...; default "dag"), with
#   SEED (default 1), MIN_BLOCKS (default 1000), MAX_BLOCKS (default 64000), MODE (`llvm`, the
#   default, or `precise`) and CONVERGE_BIN (default target/release/converge, e.g. an older binary
#   to compare with).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind is required" >&2; exit 2; }
cargo build --release -q -p converge-cli -p converge-uniformity --example gen_uniformity
GEN=target/release/examples/gen_uniformity
BIN=${CONVERGE_BIN:-target/release/converge}
SEED=${SEED:-1}
OUT=${OUT:-build/bench-uniformity}
mkdir -p "$OUT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for fam in "${@:-dag}"; do
  echo "== $fam, seed $SEED, --mode ${MODE:-llvm} ($BIN)"
  n=${MIN_BLOCKS:-1000}
  prev=""
  while [ $n -le "${MAX_BLOCKS:-64000}" ]; do
    f="$OUT/$fam-s$SEED-$n.ll"
    [ -f "$f" ] || $GEN "$fam" $n "$SEED" >"$f"
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$BIN" -j 1 uniformity --format none \
      --mode "${MODE:-llvm}" "$f" \
      2>"$tmp/err" >/dev/null
    ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/err")
    line="blocks $n: $(awk "BEGIN { printf \"%.1f\", $ir / 1e6 }") M instructions"
    [ -n "$prev" ] && line="$line, x$(awk "BEGIN { printf \"%.2f\", $ir / $prev }") per doubling"
    echo "$line"
    prev=$ir
    n=$((n * 2))
  done
done
