#!/usr/bin/env bash
# LLVM's code-moving passes checked by `converge check-transform` (docs/check-transform.md):
# generated kernels with convergent operations through opt 19 (AMDGPU) and 22 (NVPTX), pass by
# pass, every (input, output) pair checked. Prints the per-pass table (programs, pairs checked,
# changed, violations, of which known LLVM miscompiles, opt failures).
#
#   scripts/check-llvm-passes.sh [PROGRAMS_PER_PASS_AND_VERSION] [JOBS] [FIRST_SEED]
#
# 16 passes x 2 LLVM versions x PROGRAMS pairs; 320 programs per pass and version give 10,240
# pairs. Violating pairs and opt failures are written to target/check-transform/.
set -euo pipefail
cd "$(dirname "$0")/.."
programs=${1:-320}
jobs=${2:-2}
seed=${3:-0}
export CONVERGE_OPT19=${CONVERGE_OPT19:-/usr/lib/llvm-19/bin/opt}
export CONVERGE_OPT22=${CONVERGE_OPT22:-build/venv/lib/python3.11/site-packages/llvm/bin/opt}
export CONVERGE_CHECK_PROGRAMS=$programs CONVERGE_CHECK_JOBS=$jobs CONVERGE_CHECK_SEED=$seed
export CONVERGE_CHECK_REPORT=${CONVERGE_CHECK_REPORT:-target/check-transform-table.md}
mkdir -p target
start=$(date +%s)
cargo test --release -p converge-check --test llvm_passes llvm_passes_keep -- --nocapture
echo "elapsed: $(( $(date +%s) - start )) s; table in $CONVERGE_CHECK_REPORT"
