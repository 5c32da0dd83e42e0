#!/usr/bin/env bash
# Whole-process comparison of converge with LLVM's opt on one .ll file: wall time and peak memory
# of each analysis, parse included, output discarded.
#
#   converge cycles     --format none FILE   vs  opt -passes='require<cycles>'     -disable-output FILE
#   converge uniformity --format none FILE   vs  opt -passes='require<uniformity>' -disable-output FILE
#   converge verify     --format none FILE   vs  opt -passes=verify                -disable-output FILE
#
# for LLVM 19 and LLVM 22. Each command runs RUNS times (default 3); the table shows the fastest
# run's wall time and that run's peak RSS. Peak RSS comes from `/usr/bin/time -f '%e s %M KB'`;
# the wall time is taken around it with bash's EPOCHREALTIME (millisecond resolution, where %e
# has only 10 ms). With hyperfine installed, the time column is hyperfine's mean ± stddev.
#
# Usage: scripts/compare-opt.sh FILE [RUNS]
# Tools: CONVERGE_BIN (default target/release/converge; build it first with
# `cargo build --release`), CONVERGE_OPT19, CONVERGE_OPT22 (defaults as in scripts/test.sh).
# The LLVM 22 build has no AMDGPU target: on an AMDGPU module its uniformity run uses no
# target model (everything uniform), so that row is marked and is not a like-for-like comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

file=${1:?usage: scripts/compare-opt.sh FILE [RUNS]}
runs=${2:-3}
[ -r "$file" ] || { echo "cannot read $file" >&2; exit 2; }

converge=${CONVERGE_BIN:-$root/target/release/converge}
opt19=${CONVERGE_OPT19:-/usr/lib/llvm-19/bin/opt}
opt22=${CONVERGE_OPT22:-$root/build/venv/lib/python3.11/site-packages/llvm/bin/opt}
[ -x "$opt22" ] || opt22=/tmp/v/venv/lib/python3.11/site-packages/llvm/bin/opt
[ -x "$converge" ] || { echo "missing $converge: run cargo build --release first" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "missing /usr/bin/time (apt-get install time)" >&2; exit 2; }

amdgpu_module=no
if grep -qE '^target triple = "(amdgcn|amdgpu)' "$file"; then amdgpu_module=yes; fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# measure LABEL CMD... : prints "exit|seconds|KB|note" for the fastest of $runs runs.
measure() {
  local best_s="" best_kb="" code=0 s kb
  for _ in $(seq "$runs"); do
    set +e
    local t0=$EPOCHREALTIME
    /usr/bin/time -o "$tmp/t" -f '%e s %M KB' "$@" >/dev/null 2>"$tmp/err"
    code=$?
    local t1=$EPOCHREALTIME
    set -e
    kb=$(tail -n 1 "$tmp/t" | awk '{print $3}')
    s=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')
    if [ -z "$best_s" ] || awk -v a="$s" -v b="$best_s" 'BEGIN{exit !(a<b)}'; then
      best_s=$s; best_kb=$kb
    fi
  done
  local note=""
  if [ "$code" -ne 0 ] && [ "$code" -ne 1 ]; then
    note="failed: $(grep -m1 -v '^\s*$' "$tmp/err" | cut -c1-60)"
  fi
  if command -v hyperfine >/dev/null; then
    local q
    q=$(printf '%q ' "$@")
    hyperfine -N -i --runs "$runs" --export-json "$tmp/h.json" "$q" >/dev/null 2>&1 || true
    best_s=$(python3 -c 'import json,sys;r=json.load(open(sys.argv[1]))["results"][0];print("%.3f ± %.3f"%(r["mean"],r["stddev"] or 0))' "$tmp/h.json" 2>/dev/null || echo "$best_s")
  fi
  echo "$code|$best_s|$best_kb|$note"
}

size=$(wc -c <"$file")
echo "file: $file ($size bytes), best of $runs runs"
printf '%-11s %-10s %5s %16s %12s %14s  %s\n' analysis tool exit "wall (s)" "peak RSS KB" "opt/converge" note
conv_s=""
row() {
  local analysis=$1 tool=$2; shift 2
  local r; r=$(measure "$@")
  IFS='|' read -r code s kb note <<<"$r"
  local ratio=""
  if [ "$tool" = converge ]; then
    conv_s=${s%% *}
    [ "$code" = 0 ] || [ "$code" = 1 ] || conv_s=""
  elif [ -n "$conv_s" ]; then
    ratio=$(awk -v a="${s%% *}" -v b="$conv_s" 'BEGIN{ if (b > 0) printf "%.1fx", a/b; else print "-" }')
  fi
  printf '%-11s %-10s %5s %16s %12s %14s  %s\n' "$analysis" "$tool" "$code" "$s" "$kb" "$ratio" "$note"
}

for analysis in cycles uniformity verify; do
  case $analysis in
    cycles) passes='require<cycles>' ;;
    uniformity) passes='require<uniformity>' ;;
    verify) passes='verify' ;;
  esac
  row "$analysis" converge "$converge" "$analysis" --format none "$file"
  if [ -x "$opt19" ]; then
    row "$analysis" "opt 19" "$opt19" "-passes=$passes" -disable-output "$file"
  fi
  if [ -x "$opt22" ]; then
    tool="opt 22"
    if [ "$analysis" = uniformity ] && [ "$amdgpu_module" = yes ]; then tool="opt 22 (*)"; fi
    row "$analysis" "$tool" "$opt22" "-passes=$passes" -disable-output "$file"
  fi
done
if [ "$amdgpu_module" = yes ] && [ -x "$opt22" ]; then
  echo "(*) LLVM 22 here has no AMDGPU target: no divergence model, not a like-for-like run."
fi
echo "exit: 0 success, 1 analysed and found invalid (verify), other = failure (see note)."
echo "opt/converge: opt's wall time over converge's (above 1 = converge faster); small files are"
echo "dominated by process start-up."
