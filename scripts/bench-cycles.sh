#!/usr/bin/env bash
# Dominators + cycles on ~60 MB modules: converge against LLVM 19's `opt`.
#
# LLVM side: `opt -passes='require<domtree>,require<cycles>' -disable-output -time-passes`, the wall
# times of the DominatorTreeAnalysis and CycleAnalysis lines of the analysis timing report (the
# analyses `print<cycles>` needs, without the printing).
# converge side: `converge cycles --format none --time-passes` on one thread (RAYON_NUM_THREADS=1),
# the "dominators+cycles" line (time in CycleInfo::compute + DominatorTree::compute_from_dfs, which
# reuses the cycle analysis's DFS, summed over functions). Neither side counts parsing. Whole-process wall times are printed too. Each side runs
# REPS times (default 3) and the minimum is kept: the machine is shared.
#
# Usage: scripts/bench-cycles.sh [MODULE.ll ...]
# Default modules, generated once into build/bench/:
#   gpu-60mb.ll  the 60 MB GPU benchmark module (`converge_gen::module`, ~3,000 kernels/helpers);
#   cfg-60mb.ll  a control-flow stress module: 640 functions of ~2,000 blocks, chains of random
#                nested, irreducible, switch and self-loop pieces (`converge_gen::cfg::chain_cfg`).
set -euo pipefail
cd "$(dirname "$0")/.."
opt19="${CONVERGE_OPT19:-/usr/lib/llvm-19/bin/opt}"
reps="${REPS:-3}"

cargo build --release -q -p converge-cli
bin=target/release/converge
modules=("$@")
if [ ${#modules[@]} -eq 0 ]; then
  mkdir -p build/bench
  [ -f build/bench/gpu-60mb.ll ] ||
    cargo run --release -q -p converge-gen --example big_module -- build/bench/gpu-60mb.ll --mb 60
  [ -f build/bench/cfg-60mb.ll ] ||
    cargo run --release -q -p converge-graph --example cfg_module -- build/bench/cfg-60mb.ll
  modules=(build/bench/gpu-60mb.ll build/bench/cfg-60mb.ll)
fi

now() { date +%s.%N; }
min() { printf '%s\n' "$@" | sort -g | head -1; }
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }

median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

for module in "${modules[@]}"; do
  # opt and converge alternate, so both see the same load; the speed-up is also taken per pair.
  llvm_dt=(); llvm_ci=(); llvm_wall=(); ours=(); ours_wall=(); ratios=()
  for _ in $(seq "$reps"); do
    t0=$(now)
    report=$("$opt19" -passes='require<domtree>,require<cycles>' -disable-output -time-passes "$module" 2>&1)
    t1=$(now)
    # Drop the "( 12.3%)" groups; the remaining columns are user, system, user+system, wall, name.
    table=$(printf '%s\n' "$report" | sed -E 's/\([^)]*\)//g')
    dt=$(printf '%s\n' "$table" | awk '$NF=="DominatorTreeAnalysis"{print $4; exit}')
    ci=$(printf '%s\n' "$table" | awk '$NF=="CycleAnalysis"{print $4; exit}')
    llvm_dt+=("$dt"); llvm_ci+=("$ci"); llvm_wall+=("$(calc "$t1 - $t0")")
    t0=$(now)
    report=$(RAYON_NUM_THREADS=1 "$bin" cycles --format none --time-passes "$module" 2>&1)
    t1=$(now)
    ms=$(printf '%s\n' "$report" | awk '$1=="dominators+cycles"{print $2; exit}')
    o=$(calc "$ms / 1000")
    ours+=("$o"); ours_wall+=("$(calc "$t1 - $t0")")
    ratios+=("$(calc "($dt + $ci) / $o")")
  done
  blocks=$(printf '%s\n' "$report" | awk '/functions,/{print $3, $4, $5, $6; exit}')
  dt=$(min "${llvm_dt[@]}"); ci=$(min "${llvm_ci[@]}"); lw=$(min "${llvm_wall[@]}")
  o=$(min "${ours[@]}"); ow=$(min "${ours_wall[@]}")
  both=$(calc "$dt + $ci")
  echo "== $module ($(du -m "$module" | cut -f1) MB; $blocks) fastest of $reps runs"
  printf '  LLVM 19  DominatorTreeAnalysis  %8.3f s\n' "$dt"
  printf '  LLVM 19  CycleAnalysis          %8.3f s\n' "$ci"
  printf '  LLVM 19  both                   %8.3f s\n' "$both"
  printf '  converge dominators+cycles      %8.3f s  (1 thread)\n' "$o"
  printf '  speed-up: fastest/fastest %.1fx; per run pair: median %.1fx (min %.1fx)\n' \
    "$(calc "$both / $o")" "$(median "${ratios[@]}")" "$(min "${ratios[@]}")"
  printf '  whole process (parse included): opt %.2f s, converge %.2f s\n' "$lw" "$ow"
done
