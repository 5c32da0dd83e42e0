#!/usr/bin/env bash
# Issue 13, part 1 at one size: user seconds of `converge -j 1 uniformity --format none` on every
# `gen_uniformity` family (the list of scripts/bench-scaling-matrix.sh) at N blocks (default
# 64000) for one seed, in the three settings (LLVM 22, LLVM 19, precise). One run each (GNU
# time, 10 ms resolution); the load average is printed per line, as the figures depend on it.
# The matrix's callgrind counts decide growth; this sweep finds what to give the matrix: it is
# how session 24 found a family quadratic only past 16,000 blocks (`chain-noreturn`, precise)
# and one slow only at 2,000 (`interp`, precise) (docs/benchmarks-issue13.md).
#
# Usage: scripts/bench-family-sweep.sh [N [SEED]]   (CONVERGE_BIN, default target/release/converge;
#   inputs kept in build/bench-uniformity). Output: FAMILY LLVM22 LLVM19 PRECISE load L
set -euo pipefail
cd "$(dirname "$0")/.."
command -v /usr/bin/time >/dev/null || { echo "GNU time (/usr/bin/time) is required" >&2; exit 2; }
cargo build --release -q -p converge-cli -p converge-uniformity --example gen_uniformity
GEN=target/release/examples/gen_uniformity
BIN=${CONVERGE_BIN:-target/release/converge}
N=${1:-64000}
SEED=${2:-1}
OUT=build/bench-uniformity
mkdir -p "$OUT"
ALL=$(sed -n '/^ALL="/,/"$/p' scripts/bench-scaling-matrix.sh | tr -d '"' | sed 's/^ALL=//')
for fam in $ALL; do
  f="$OUT/$fam-s$SEED-$N.ll"
  [ -s "$f" ] || "$GEN" "$fam" "$N" "$SEED" >"$f"
  line="$fam"
  for set in "--mode llvm" "--mode llvm --llvm-version 19" "--mode precise"; do
    # shellcheck disable=SC2086
    u=$({ /usr/bin/time -f %U "$BIN" -j 1 uniformity --format none $set "$f" >/dev/null; } 2>&1)
    line="$line $u"
  done
  echo "$line load $(cut -d' ' -f1 /proc/loadavg)"
done
