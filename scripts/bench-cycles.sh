#!/usr/bin/env bash
# Dominators + cycles on a ~60 MB generated module: converge against LLVM 19's `opt`.
#
# LLVM side: `opt -passes='require<domtree>,require<cycles>' -disable-output -time-passes`, the wall
# times of the DominatorTreeAnalysis and CycleAnalysis lines of the analysis timing report (the
# same analyses `print<cycles>` runs, without the printing).
# converge side: `converge cycles --format none --time-passes` on one thread (RAYON_NUM_THREADS=1),
# the "dominators+cycles" line (time in DominatorTree::compute + CycleInfo::compute, summed over
# functions). Both report analysis time only, not parsing. Whole-process wall times are printed
# too. Each side runs REPS times (default 3); the minimum is kept (the machine is shared).
#
# Usage: scripts/bench-cycles.sh [MODULE.ll]
#   default module: build/bench/cycles-60mb.ll, generated once by
#   `cargo run --release -p converge-graph --example big_module` (640 functions x ~2,000 blocks).
set -euo pipefail
cd "$(dirname "$0")/.."
opt19="${CONVERGE_OPT19:-/usr/lib/llvm-19/bin/opt}"
reps="${REPS:-3}"
module="${1:-build/bench/cycles-60mb.ll}"

cargo build --release -q -p converge-cli
if [ ! -f "$module" ]; then
  mkdir -p "$(dirname "$module")"
  cargo run --release -q -p converge-graph --example big_module -- "$module"
fi
bin=target/release/converge
echo "module: $module ($(du -m "$module" | cut -f1) MB)"

now() { date +%s.%N; }
min() { printf '%s\n' "$@" | sort -g | head -1; }

llvm_dt=(); llvm_ci=(); llvm_wall=()
for _ in $(seq "$reps"); do
  t0=$(now)
  report=$("$opt19" -passes='require<domtree>,require<cycles>' -disable-output -time-passes "$module" 2>&1)
  t1=$(now)
  # Drop the "( 12.3%)" groups; the remaining columns are user, system, user+system, wall, name.
  dt=$(printf '%s\n' "$report" | sed -E 's/\([^)]*\)//g' | awk '$NF=="DominatorTreeAnalysis"{print $4; exit}')
  ci=$(printf '%s\n' "$report" | sed -E 's/\([^)]*\)//g' | awk '$NF=="CycleAnalysis"{print $4; exit}')
  llvm_dt+=("$dt"); llvm_ci+=("$ci"); llvm_wall+=("$(echo "$t1 - $t0" | bc -l)")
done

ours=(); ours_wall=()
for _ in $(seq "$reps"); do
  t0=$(now)
  report=$(RAYON_NUM_THREADS=1 "$bin" cycles --format none --time-passes "$module" 2>&1)
  t1=$(now)
  ms=$(printf '%s\n' "$report" | awk '$1=="dominators+cycles"{print $2; exit}')
  ours+=("$(echo "$ms / 1000" | bc -l)"); ours_wall+=("$(echo "$t1 - $t0" | bc -l)")
done
t0=$(now); "$bin" cycles --format none "$module"; t1=$(now)
par_wall=$(echo "$t1 - $t0" | bc -l)

dt=$(min "${llvm_dt[@]}"); ci=$(min "${llvm_ci[@]}"); lw=$(min "${llvm_wall[@]}")
o=$(min "${ours[@]}"); ow=$(min "${ours_wall[@]}")
llvm_sum=$(echo "$dt + $ci" | bc -l)
printf 'LLVM 19  DominatorTreeAnalysis  %8.3f s\n' "$dt"
printf 'LLVM 19  CycleAnalysis          %8.3f s\n' "$ci"
printf 'LLVM 19  both                   %8.3f s\n' "$llvm_sum"
printf 'converge dominators+cycles      %8.3f s  (1 thread)\n' "$o"
printf 'speed-up (analysis time)        %8.1fx\n' "$(echo "$llvm_sum / $o" | bc -l)"
printf 'whole process: opt %.2f s, converge %.2f s (1 thread), %.2f s (all threads, no timing)\n' \
  "$lw" "$ow" "$par_wall"
