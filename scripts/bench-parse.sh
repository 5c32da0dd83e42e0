#!/usr/bin/env bash
# Reading LLVM textual IR: converge against LLVM 19's `opt` on the same ~60 MB module.
#
# LLVM side: `opt -passes=verify -disable-output -time-passes`, the wall time of the "LLVM IR
# Parsing" section (parsing only), plus whole-process wall time and peak RSS.
# converge side: whole-process `converge stats --format none` (read the file, parse, count; no
# analysis), wall time and peak RSS (`/usr/bin/time -v`), and the in-process read time (`--time`).
# Each side runs REPS times (default 3) and the minimum is kept: the machine is shared (the load
# average before and after is printed with the result).
#
# Usage: scripts/bench-parse.sh [MODULE.ll ...]
# Default module, generated once: build/bench/gpu-60mb.ll (`converge_gen::module`, ~3,000
# kernels/helpers; `cargo run --release -p converge-gen --example big_module`).
set -euo pipefail
cd "$(dirname "$0")/.."
opt19="${CONVERGE_OPT19:-/usr/lib/llvm-19/bin/opt}"
reps="${REPS:-3}"
[ -x /usr/bin/time ] || { echo "bench-parse: /usr/bin/time (GNU time) is required" >&2; exit 2; }

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
# Wall seconds and peak RSS (KiB) from `/usr/bin/time -v` output in file $1.
wall_of() {
  awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$1"
}
rss_of() { awk -F': ' '/Maximum resident set size/ { print $2 }' "$1"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for module in "${modules[@]}"; do
  bytes=$(stat -c %s "$module")
  load0=$(cut -d' ' -f1-3 /proc/loadavg)
  l_parse=(); l_wall=(); l_rss=(); c_read=(); c_wall=(); c_rss=()
  for _ in $(seq "$reps"); do
    /usr/bin/time -v "$opt19" -passes=verify -disable-output -time-passes "$module" \
      >"$tmp/opt.out" 2>"$tmp/opt.err"
    l_parse+=("$(awk '/LLVM IR Parsing/ { f = 1 } f && /Total Execution Time/ { gsub(/[()]/, ""); print $(NF-2); exit }' "$tmp/opt.err")")
    l_wall+=("$(wall_of "$tmp/opt.err")")
    l_rss+=("$(rss_of "$tmp/opt.err")")
    /usr/bin/time -v "$bin" stats --format none --time "$module" >"$tmp/cv.out" 2>"$tmp/cv.err"
    c_read+=("$(awk '/^read:/ { print $2 / 1000 }' "$tmp/cv.err")")
    c_wall+=("$(wall_of "$tmp/cv.err")")
    c_rss+=("$(rss_of "$tmp/cv.err")")
  done
  lp=$(min "${l_parse[@]}"); lw=$(min "${l_wall[@]}"); lr=$(min "${l_rss[@]}")
  cr=$(min "${c_read[@]}"); cw=$(min "${c_wall[@]}"); crss=$(min "${c_rss[@]}")
  mb=$(calc "$bytes / 1048576")
  echo "== $module ($mb MiB, best of $reps; load average $load0 before, $(cut -d' ' -f1-3 /proc/loadavg) after)"
  printf '  %-44s %8s s   peak RSS %7.1f MiB\n' "LLVM 19 opt: LLVM IR Parsing (wall)" "$lp" "$(calc "$lr / 1024")"
  printf '  %-44s %8s s\n' "LLVM 19 opt: whole process (parse + verify)" "$lw"
  printf '  %-44s %8s s   peak RSS %7.1f MiB\n' "converge stats --format none: whole process" "$cw" "$(calc "$crss / 1024")"
  printf '  %-44s %8s s\n' "converge: in-process read (file + parse)" "$cr"
  echo "  speed-up, LLVM parse / converge whole process: $(calc "$lp / $cw")x (target >= 5x)"
  echo "  converge peak RSS / file size: $(calc "$crss * 1024 / $bytes")x (target < 4x)"
done
