#!/usr/bin/env bash
# Same answers: md5 of `converge -j 1 uniformity --format llvm` (LLVM 22 mode, `--llvm-version 19`
# and `--mode precise`) from two binaries on the comparison set of issue 13: both benchmark
# modules of scripts/bench-uniformity.sh, the irreducible function at 500-64,000 blocks, the DAG
# family (seeds 1-4, 500-8,000 blocks, seed 4 also at 16,000), chains of every shape at 1,000 and
# 4,000 blocks (seeds 2-3 at 2,000), the one-shape families of gen_uniformity and the shapes of
# sessions 20 and 22 at 1,000-4,000 blocks (session 22's shuffled families at 1,000 and 4,000),
# and every .ll
# file under examples/ and crates/*/tests/.
#
# Usage: scripts/compare-uniformity-outputs.sh OLD_BINARY [NEW_BINARY]
#   (NEW_BINARY defaults to target/release/converge; inputs are kept in build/compare-inputs).
# Prints one line per input and mode that differs, then a summary; exit 1 on any difference.
# An output that differs only in the order of its lines (the same lines sorted: the printed order
# of the cycles with a divergent exit, which LLVM prints in hash order beyond 16 entries and
# which postponing branches may change, docs/benchmarks-issue13.md) is reported as such and
# counted apart; it fails only with STRICT_ORDER=1.
set -uo pipefail
cd "$(dirname "$0")/.."
old=$1
new=${2:-target/release/converge}
cargo build --release -q -p converge-cli -p converge-uniformity --example gen_uniformity
gen=target/release/examples/gen_uniformity
dir=build/compare-inputs
mkdir -p "$dir"
make() { local f="$dir/$1.ll"; shift; [ -s "$f" ] || "$gen" "$@" >"$f"; echo "$f"; }
inputs=()
inputs+=("$(make module-45 module 2000 7 45)" "$(make module-70 module 2000 7 70)")
# MAX_IRREDUCIBLE (default 64000) caps the irreducible functions (the 64,000-block output is 2 GB).
for n in 500 1000 2000 4000 8000 16000 32000 64000; do
  [ "$n" -le "${MAX_IRREDUCIBLE:-64000}" ] && inputs+=("$(make irr-$n irreducible $n 1)")
done
for s in 1 2 3 4; do
  for n in 500 1000 2000 4000 8000; do inputs+=("$(make dag-$s-$n dag $n $s)"); done
done
inputs+=("$(make dag-4-16000 dag 16000 4)")
for s in 1 2; do
  for n in 1000 2000 4000; do inputs+=("$(make grid-$s-$n grid $n $s)"); done
done
# Seed 2 gets a nest under a reducible loop only from 8,000 blocks (the nested budgets apply).
inputs+=("$(make grid-2-8000 grid 8000 2)")
for sh in reducible irreducible nestedirreducible selfloops switch unreachable noreturn multiexit mixed; do
  for n in 1000 4000; do inputs+=("$(make chain-$sh-$n chain-$sh $n 1)"); done
  for s in 2 3; do inputs+=("$(make chain-$sh-s$s-2000 chain-$sh 2000 $s)"); done
done
for fam in nest exits switch irrloop irrladder irrladder-up irrladder-loop irrladder-unreach selfloops \
  diamonds exitnest datachain tokens manyfuncs widephi latchy \
  tempchain earlyret interp switchnest shiftreg; do
  for n in 1000 2000 4000; do inputs+=("$(make $fam-$n $fam $n 1)"); done
done
# Session 22: families with their blocks laid out in a random order (the entry first).
for fam in nest dag irreducible exitnest latchy datachain tokens tempchain earlyret interp \
  switchnest shiftreg; do
  for n in 1000 4000; do inputs+=("$(make shuffled-$fam-$n shuffled-$fam $n 1)"); done
done
# Random loop nests with jumps into later loops (session 21): three seeds, up to 8,000 blocks.
for s in 1 2 3; do
  for n in 2000 8000; do inputs+=("$(make randnest-$s-$n randnest $n $s)"); done
done
# Every hand-written input of the repository (examples and the crates' tests).
while IFS= read -r f; do inputs+=("$f"); done < <(find examples crates/*/tests -name '*.ll' | sort)
diffs=0
orders=0
runs=0
for f in "${inputs[@]}"; do
  for mode in "" "--llvm-version 19" "--mode precise"; do
    # shellcheck disable=SC2086
    a=$("$old" -j 1 uniformity --format llvm $mode "$f" 2>&1 | md5sum)
    # shellcheck disable=SC2086
    b=$("$new" -j 1 uniformity --format llvm $mode "$f" 2>&1 | md5sum)
    runs=$((runs + 1))
    if [ "$a" != "$b" ]; then
      # shellcheck disable=SC2086
      as=$("$old" -j 1 uniformity --format llvm $mode "$f" 2>&1 | sort | md5sum)
      # shellcheck disable=SC2086
      bs=$("$new" -j 1 uniformity --format llvm $mode "$f" 2>&1 | sort | md5sum)
      if [ "$as" = "$bs" ]; then
        echo "ORDER ONLY: $f ${mode:-(llvm 22)}"
        orders=$((orders + 1))
      else
        echo "DIFFERS: $f ${mode:-(llvm 22)}"
        diffs=$((diffs + 1))
      fi
    fi
  done
done
echo "${#inputs[@]} inputs, $runs runs per binary, $diffs differing, $orders differing only in line order"
[ "$diffs" -eq 0 ] && { [ "${STRICT_ORDER:-0}" != 1 ] || [ "$orders" -eq 0 ]; }
