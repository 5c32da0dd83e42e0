#!/usr/bin/env bash
# Whole-process comparison on the benchmark GPU module with tokens inserted (default 60 MB):
#   converge verify (parse + token rules) vs. converge stats (parse + CFG + cycles) vs. LLVM's
#   llvm-as (parse + verifier) and opt -passes=verify.
# Usage: crates/verify/benches/compare_opt.sh [MB]
set -euo pipefail
cd "$(dirname "$0")/../../.."
mb=${1:-60}
opt19=${CONVERGE_OPT19:-/usr/lib/llvm-19/bin/opt}
opt22=${CONVERGE_OPT22:-build/venv/lib/python3.11/site-packages/llvm/bin/opt}
cargo build --release -q -p converge-cli -p converge-verify --examples --bins
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
target/release/examples/token_module gpu "$mb" > "$tmp/big.ll"
ls -l "$tmp/big.ll" | awk '{printf "module: %.1f MB\n", $5/1048576}'
t() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N); echo "$e - $s" | bc; }
best() { local b=999999 x; for _ in 1 2 3; do x=$(t "$@"); b=$(echo "if ($x < $b) $x else $b" | bc); done; echo "$b"; }
printf '%-44s %8s s\n' "converge verify --format none" "$(best target/release/converge verify --format none "$tmp/big.ll")"
printf '%-44s %8s s\n' "converge stats (read + CFG + cycles)" "$(best target/release/converge stats "$tmp/big.ll")"
[ -x "$opt19" ] && printf '%-44s %8s s\n' "opt 19 -passes=verify" "$(best "$opt19" -passes=verify -disable-output "$tmp/big.ll")"
[ -x "$(dirname "$opt19")/llvm-as" ] && printf '%-44s %8s s\n' "llvm-as 19 (parse + verify)" "$(best "$(dirname "$opt19")/llvm-as" -o /dev/null "$tmp/big.ll")"
[ -x "$opt22" ] && printf '%-44s %8s s\n' "opt 22 -passes=verify" "$(best "$opt22" -passes=verify -disable-output "$tmp/big.ll")"
