#!/usr/bin/env bash
# Whole-process comparison of `converge uniformity --format none` (single-threaded) with LLVM 19's
# `opt -passes='require<uniformity>' -disable-output` on
#   (a) a ~60 MB module of 2,000 random AMDGPU functions (50-300 blocks, every CFG shape);
#   (b) one irreducible function of 500 .. MAX_BLOCKS blocks (default 16,000; 64,000 takes minutes).
# opt is only run up to OPT_MAX_BLOCKS (default 2000; it needs ~40 s there and grows ~8x per doubling).
# Usage: scripts/bench-uniformity.sh [outdir]
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-build/bench-uniformity}
OPT19=${CONVERGE_OPT19:-/usr/lib/llvm-19/bin/opt}
OPT_MAX_BLOCKS=${OPT_MAX_BLOCKS:-2000}
MAX_BLOCKS=${MAX_BLOCKS:-16000}
mkdir -p "$OUT"
cargo build --release -q -p converge-cli -p converge-uniformity --example gen_uniformity
GEN=target/release/examples/gen_uniformity
CONVERGE=target/release/converge
secs() { /usr/bin/time -f %e "$@" 2>&1 >/dev/null | tail -1; }

echo "== (a) module of 2,000 random functions"
[ -f "$OUT/module2000.ll" ] || $GEN module 2000 7 > "$OUT/module2000.ll"
ls -l "$OUT/module2000.ll" | awk '{printf "size: %.1f MB\n", $5/1e6}'
c=$(RAYON_NUM_THREADS=1 secs $CONVERGE uniformity --format none "$OUT/module2000.ll")
echo "converge (1 thread): ${c} s"
RAYON_NUM_THREADS=1 $CONVERGE uniformity --format none --time "$OUT/module2000.ll"
if [ -x "$OPT19" ]; then
  o=$(secs "$OPT19" -passes='require<uniformity>' -disable-output "$OUT/module2000.ll")
  echo "opt 19: ${o} s; speed-up $(echo "$o / $c" | bc -l | cut -c1-5)x"
fi

echo "== (b) one irreducible function"
n=500
while [ $n -le "$MAX_BLOCKS" ]; do
  f="$OUT/irreducible$n.ll"
  [ -f "$f" ] || $GEN irreducible $n 1 > "$f"
  c=$(RAYON_NUM_THREADS=1 secs $CONVERGE uniformity --format none "$f")
  line="blocks $n: converge ${c} s"
  if [ -x "$OPT19" ] && [ $n -le "$OPT_MAX_BLOCKS" ]; then
    o=$(secs "$OPT19" -passes='require<uniformity>' -disable-output "$f")
    line="$line; opt 19 ${o} s"
  fi
  echo "$line"
  n=$((n * 2))
done
