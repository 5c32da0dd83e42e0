#!/usr/bin/env bash
# Whole-process comparison of `converge -j 1 uniformity --format none` (one thread: the sequential
# reader and one analysis thread) with LLVM 19's
# `opt -passes='require<uniformity>' -disable-output` on
#   (a) a ~70 MB module of 2,000 random AMDGPU functions (50-300 blocks, every CFG shape), at two
#       densities of extra edges (MODULE_EXTRA, default "45 70");
#   (b) one irreducible function of 500 .. MAX_BLOCKS blocks (default 64,000), doubling;
#   (c) issue 13's family: one function whose CFG is a forward DAG (jumps of 1-4 blocks) plus back
#       edges from a third of the blocks to random blocks, every branch on the thread id
#       (`gen_uniformity dag`), 1,000 .. MAX_BLOCKS blocks, SEEDS seeds each (default "1 4");
#       opt up to OPT_MAX_DAG blocks (default 1,000: it needs about a minute there);
#   (d) one function chained from random CFGs of each shape of converge_gen::cfg (FAMILIES,
#       default all eight; every branch on the thread id), 1,000 .. MAX_CHAIN_BLOCKS (default
#       MAX_BLOCKS) blocks, one run each (CHAIN_REPS).
# Each converge figure is the median of REPS runs (default 3), with the growth per doubling; opt
# runs once, and only up to OPT_MAX_BLOCKS (default 2000; it needs ~30 s there and grows ~8x per
# doubling), with the speed-up over it measured in the same run.
# The machine's load average is printed with the results (other jobs skew wall-clock times).
# Usage: scripts/bench-uniformity.sh [outdir]
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-build/bench-uniformity}
OPT19=${CONVERGE_OPT19:-/usr/lib/llvm-19/bin/opt}
OPT_MAX_BLOCKS=${OPT_MAX_BLOCKS:-2000}
MAX_BLOCKS=${MAX_BLOCKS:-64000}
REPS=${REPS:-3}
mkdir -p "$OUT"
cargo build --release -q -p converge-cli -p converge-uniformity --example gen_uniformity
GEN=target/release/examples/gen_uniformity
CONVERGE=target/release/converge
# Wall seconds of one run, to the millisecond.
secs() {
  local a b
  a=$(date +%s.%N)
  "$@" >/dev/null 2>&1
  b=$(date +%s.%N)
  echo "$a $b" | awk '{printf "%.3f\n", $2 - $1}'
}
# Median of REPS runs of a command.
median() {
  for _ in $(seq "$REPS"); do secs "$@"; done | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}
load() { cut -d' ' -f1-3 /proc/loadavg; }

# Two densities of extra edges in the random-CFG half of the module: 45% (the generator's default;
# LLVM 19 needs ~8 s here) and 70% (LLVM 19 needs ~22 s, ~17 s of it in the analysis: the figures
# the issue quotes for its module, ~24 s and ~19 s).
for extra in ${MODULE_EXTRA-45 70}; do
  m="$OUT/module2000-e$extra.ll"
  echo "== (a) module of 2,000 random functions, ${extra}% extra edges (load $(load))"
  [ -f "$m" ] || $GEN module 2000 7 "$extra" > "$m"
  ls -l "$m" | awk '{printf "size: %.1f MB\n", $5/1e6}'
  c=$(median $CONVERGE -j 1 uniformity --format none "$m")
  echo "converge (1 thread, median of $REPS): ${c} s"
  cp=$(median $CONVERGE -j 1 uniformity --mode precise --format none "$m")
  echo "converge --mode precise (1 thread, median of $REPS): ${cp} s ($(echo "$cp / $c" | bc -l | cut -c1-4)x llvm mode)"
  $CONVERGE -j 1 uniformity --format none --time "$m"
  if [ -x "$OPT19" ]; then
    o=$(secs "$OPT19" -passes='require<uniformity>' -disable-output "$m")
    echo "opt 19: ${o} s; speed-up $(echo "$o / $c" | bc -l | cut -c1-5)x (load $(load))"
  fi
done

# scaling FAMILY SEED FIRST MAX OPTMAX: one function per size, doubling; per-doubling growth;
# opt up to OPTMAX blocks.
scaling() {
  local fam=$1 seed=$2 n=$3 max=$4 optmax=$5 prev="" c mem line o ph
  while [ "$n" -le "$max" ]; do
    f="$OUT/$fam-s$seed-$n.ll"
    [ "$fam" = irreducible ] && [ "$seed" = 1 ] && f="$OUT/irreducible$n.ll"
    [ -f "$f" ] || $GEN "$fam" "$n" "$seed" > "$f"
    c=$(median $CONVERGE -j 1 uniformity --format none "$f")
    mem=$(/usr/bin/time -f %M $CONVERGE -j 1 uniformity --format none "$f" 2>&1 >/dev/null | tail -1)
    ph=$($CONVERGE -j 1 uniformity --format none --time "$f" 2>&1 | sed -n 's/.*(summed: \(.*\), render.*/\1/p')
    line="blocks $n: converge ${c} s (median of $REPS)"
    [ -n "$prev" ] && line="$line, x$(echo "$c / $prev" | bc -l | cut -c1-4) per doubling"
    line="$line, ${mem} KB max RSS [$ph]"
    if [ -x "$OPT19" ] && [ "$n" -le "$optmax" ]; then
      o=$(secs "$OPT19" -passes='require<uniformity>' -disable-output "$f")
      line="$line; opt 19 ${o} s, speed-up $(echo "$o / $c" | bc -l | cut -c1-6)x"
    fi
    echo "$line (load $(load))"
    prev=$c
    n=$((n * 2))
  done
}

echo "== (b) one irreducible function"
scaling irreducible 1 500 "$MAX_BLOCKS" "$OPT_MAX_BLOCKS"

for seed in ${SEEDS:-1 4}; do
  echo "== (c) DAG plus random back edges (issue 13), seed $seed"
  scaling dag "$seed" 1000 "$MAX_BLOCKS" "${OPT_MAX_DAG:-1000}"
done

REPS0=$REPS
REPS=${CHAIN_REPS:-1}
for fam in ${FAMILIES:-reducible irreducible nestedirreducible selfloops switch noreturn multiexit mixed}; do
  echo "== (d) chain of $fam pieces, median of $REPS"
  scaling "chain-$fam" 1 1000 "${MAX_CHAIN_BLOCKS:-$MAX_BLOCKS}" "${OPT_MAX_CHAIN:-1000}"
done
REPS=$REPS0
