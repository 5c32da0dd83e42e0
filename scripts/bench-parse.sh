#!/usr/bin/env bash
# Reading LLVM textual IR: converge against LLVM 19's `opt` on the same modules, in the same run.
#
# LLVM side: `opt -passes=verify -disable-output -time-passes`, the wall time of its "LLVM IR
# Parsing" section (parsing only), plus whole-process wall time and peak RSS.
# converge side, one thread and two: `converge -j N stats --format none --time`, the in-process
# read time it prints (`read:`: the file read, the parse and the reader's IR checks), whole-process
# wall time, CPU time (user + system) and peak RSS (`/usr/bin/time -v`). On a loaded machine the
# CPU-time ratio (LLVM's parse, from -time-passes, against converge's whole process) is the one to
# trust: wall times then measure the waiting for a core.
# Every command runs REPS times (default 5), alternated, and each figure is the median of its REPS
# runs; the ratios use the medians of the same run. The load average before and after is printed.
#
# Usage: scripts/bench-parse.sh [MODULE.ll ...]
# Default modules, generated once: build/bench/gpu-36mb.ll (`converge_gen::module`, the 38 MB
# module of issue 13: `big_module --mb 36`) and build/bench/cfg-60mb.ll (control-flow heavy:
# `cfg_module`, 640 functions of ~2,000 blocks).
set -euo pipefail
cd "$(dirname "$0")/.."
opt19="${CONVERGE_OPT19:-/usr/lib/llvm-19/bin/opt}"
reps="${REPS:-5}"
[ -x /usr/bin/time ] || { echo "bench-parse: /usr/bin/time (GNU time) is required" >&2; exit 2; }
[ -x "$opt19" ] || { echo "bench-parse: LLVM 19 opt not found ($opt19)" >&2; exit 2; }

cargo build --release -q -p converge-cli
bin=${CONVERGE_BIN:-target/release/converge}
modules=("$@")
if [ ${#modules[@]} -eq 0 ]; then
  mkdir -p build/bench
  [ -f build/bench/gpu-36mb.ll ] ||
    cargo run --release -q -p converge-gen --example big_module -- build/bench/gpu-36mb.ll --mb 36
  [ -f build/bench/cfg-60mb.ll ] ||
    cargo run --release -q -p converge-graph --example cfg_module -- build/bench/cfg-60mb.ll
  modules=(build/bench/gpu-36mb.ll build/bench/cfg-60mb.ll)
fi

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
calc() { awk "BEGIN { printf \"%.3f\", $1 }"; }
# Wall seconds and peak RSS (KiB) from `/usr/bin/time -v` output in file $1.
wall_of() {
  awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$1"
}
rss_of() { awk -F': ' '/Maximum resident set size/ { print $2 }' "$1"; }
# User + system CPU seconds from `/usr/bin/time -v` output in file $1.
cpu_of() { awk -F': ' '/User time|System time/ { s += $2 } END { print s }' "$1"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for module in "${modules[@]}"; do
  bytes=$(stat -c %s "$module")
  load0=$(cut -d' ' -f1-3 /proc/loadavg)
  l_parse=(); l_pcpu=(); l_wall=(); l_rss=()
  r1=(); w1=(); m1=(); c1=(); r2=(); w2=(); m2=(); c2=()
  for _ in $(seq "$reps"); do
    /usr/bin/time -v "$opt19" -passes=verify -disable-output -time-passes "$module" \
      >"$tmp/opt.out" 2>"$tmp/opt.err"
    l_parse+=("$(awk '/LLVM IR Parsing/ { f = 1 } f && /Total Execution Time/ { gsub(/[()]/, ""); print $(NF-2); exit }' "$tmp/opt.err")")
    # The same line's first figure: user + system time of the parse.
    l_pcpu+=("$(awk '/LLVM IR Parsing/ { f = 1 } f && /Total Execution Time/ { print $4; exit }' "$tmp/opt.err")")
    l_wall+=("$(wall_of "$tmp/opt.err")")
    l_rss+=("$(rss_of "$tmp/opt.err")")
    for j in 1 2; do
      /usr/bin/time -v "$bin" -j "$j" stats --format none --time "$module" >"$tmp/cv.out" 2>"$tmp/cv.err"
      r=$(awk '/^read:/ { print $2 / 1000 }' "$tmp/cv.err")
      w=$(wall_of "$tmp/cv.err")
      m=$(rss_of "$tmp/cv.err")
      c=$(cpu_of "$tmp/cv.err")
      if [ "$j" = 1 ]; then r1+=("$r"); w1+=("$w"); m1+=("$m"); c1+=("$c"); else r2+=("$r"); w2+=("$w"); m2+=("$m"); c2+=("$c"); fi
    done
  done
  lp=$(median "${l_parse[@]}"); lc=$(median "${l_pcpu[@]}"); lw=$(median "${l_wall[@]}"); lr=$(median "${l_rss[@]}")
  cr1=$(median "${r1[@]}"); cw1=$(median "${w1[@]}"); cm1=$(median "${m1[@]}"); cc1=$(median "${c1[@]}")
  cr2=$(median "${r2[@]}"); cw2=$(median "${w2[@]}"); cm2=$(median "${m2[@]}"); cc2=$(median "${c2[@]}")
  echo "== $module ($(calc "$bytes / 1e6") MB, median of $reps; load average $load0 before, $(cut -d' ' -f1-3 /proc/loadavg) after)"
  printf '  %-46s %8s s   peak RSS %7.1f MiB   CPU %s s\n' "LLVM 19 opt: LLVM IR Parsing (wall)" "$lp" "$(calc "$lr / 1024")" "$lc"
  printf '  %-46s %8s s\n' "LLVM 19 opt: whole process (parse + verify)" "$lw"
  for j in 1 2; do
    if [ "$j" = 1 ]; then cr=$cr1; cw=$cw1; cm=$cm1; cc=$cc1; else cr=$cr2; cw=$cw2; cm=$cm2; cc=$cc2; fi
    printf '  %-46s %8s s   peak RSS %7.1f MiB (%sx the file)   CPU %s s\n' "converge -j $j stats --format none: whole process" "$cw" "$(calc "$cm / 1024")" "$(calc "$cm * 1024 / $bytes")" "$cc"
    printf '  %-46s %8s s   %7.1f MB/s\n' "converge -j $j: in-process read (file + parse)" "$cr" "$(calc "$bytes / 1e6 / $cr")"
    echo "  speed-up -j $j, LLVM parse / converge read: $(calc "$lp / $cr")x; LLVM parse / converge whole process: $(calc "$lp / $cw")x (wall); LLVM parse CPU / converge whole-process CPU: $(calc "$lc / $cc")x"
  done
done
