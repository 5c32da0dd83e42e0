#!/usr/bin/env bash
# Precise mode against llvm mode, as instructions executed (valgrind's callgrind: independent of
# the machine's load, unlike wall time on a shared machine), on the inputs of
# scripts/bench-uniformity.sh: a module of random AMDGPU functions (MODULE_FUNCS, default 300)
# and single irreducible functions (IRR_BLOCKS, default "2000 8000 32000").
# The analysis share is the whole process minus the same process with `--target none` (read,
# CFG, dominators and cycles; the analysis returns at once). Prints the ratio precise / llvm.
# Wall-clock times: `cargo bench -p converge-uniformity --bench precise`.
# Usage: scripts/bench-precise.sh [outdir]   (CONVERGE_BIN: another binary to measure)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-build/bench-precise}
mkdir -p "$OUT"
cargo build --release -q -p converge-cli -p converge-uniformity --example gen_uniformity
GEN=target/release/examples/gen_uniformity
CONVERGE=${CONVERGE_BIN:-target/release/converge}
ir() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$CONVERGE" -j 1 uniformity "$@" \
    --format none 2>&1 | awk '/Collected/ {print $4}'
}
row() {
  local f=$1 base l p
  base=$(ir --target none "$f")
  l=$(ir --mode llvm "$f")
  p=$(ir --mode precise "$f")
  echo "$(basename "$f"): analysis llvm $(( (l - base) / 1000000 )) M, precise $(( (p - base) / 1000000 )) M instructions; ratio $(echo "($p - $base) / ($l - $base)" | bc -l | cut -c1-4)x (whole process $(echo "$p / $l" | bc -l | cut -c1-4)x)"
}
m="$OUT/module${MODULE_FUNCS:-300}.ll"
[ -f "$m" ] || $GEN module "${MODULE_FUNCS:-300}" 7 45 > "$m"
row "$m"
for n in ${IRR_BLOCKS:-2000 8000 32000}; do
  f="$OUT/irreducible$n.ll"
  [ -f "$f" ] || $GEN irreducible "$n" 1 > "$f"
  row "$f"
done
