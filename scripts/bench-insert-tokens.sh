#!/usr/bin/env bash
# `converge insert-tokens` against `converge verify` on the same ~60 MB module, whole process.
#
# The claim checked: insert-tokens end to end (read, plan, print the whole module back with
# tokens, write it) takes at most 2x the time of `converge verify` (read, verify) on the same
# file. Each command runs REPS times (default 5) and the minimum wall time is kept; user CPU time
# is printed too (the machine is shared: the load average before and after is printed).
#
# Usage: scripts/bench-insert-tokens.sh [MODULE.ll ...]
# Default module, generated once: build/bench/gpu-60mb.ll (`converge_gen::module`, ~3,000
# kernels/helpers without tokens; `cargo run --release -p converge-gen --example big_module`).
set -euo pipefail
cd "$(dirname "$0")/.."
reps="${REPS:-5}"
[ -x /usr/bin/time ] || { echo "bench-insert-tokens: /usr/bin/time (GNU time) is required" >&2; exit 2; }

cargo build --release -q -p converge-cli
bin=target/release/converge
modules=("$@")
if [ ${#modules[@]} -eq 0 ]; then
  mkdir -p build/bench
  [ -f build/bench/gpu-60mb.ll ] ||
    cargo run --release -q -p converge-gen --example big_module -- build/bench/gpu-60mb.ll --mb 60
  modules=(build/bench/gpu-60mb.ll)
fi

min() { printf '%s\n' "$@" | sort -g | head -1; }
calc() { awk "BEGIN { printf \"%.3f\", $1 }"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for module in "${modules[@]}"; do
  bytes=$(stat -c %s "$module")
  load0=$(cut -d' ' -f1-3 /proc/loadavg)
  v_wall=(); v_user=(); i_wall=(); i_user=()
  for _ in $(seq "$reps"); do
    /usr/bin/time -f '%e %U' -o "$tmp/v.time" "$bin" verify --format none "$module"
    read -r w u <"$tmp/v.time"; v_wall+=("$w"); v_user+=("$u")
    /usr/bin/time -f '%e %U' -o "$tmp/i.time" "$bin" insert-tokens "$module" -o "$tmp/out.ll"
    read -r w u <"$tmp/i.time"; i_wall+=("$w"); i_user+=("$u")
  done
  vw=$(min "${v_wall[@]}"); vu=$(min "${v_user[@]}"); iw=$(min "${i_wall[@]}"); iu=$(min "${i_user[@]}")
  out_bytes=$(stat -c %s "$tmp/out.ll")
  echo "== $module ($(calc "$bytes / 1048576") MiB in, $(calc "$out_bytes / 1048576") MiB out; best of $reps; load average $load0 before, $(cut -d' ' -f1-3 /proc/loadavg) after)"
  printf '  %-40s %7s s wall  %7s s user\n' "converge verify --format none" "$vw" "$vu"
  printf '  %-40s %7s s wall  %7s s user\n' "converge insert-tokens -o OUT" "$iw" "$iu"
  echo "  insert-tokens / verify: $(calc "$iw / $vw")x wall, $(calc "$iu / $vu")x user (target <= 2x)"
done
