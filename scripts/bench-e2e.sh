#!/usr/bin/env bash
# End to end against LLVM 19 (issue 13): read a generated GPU module and compute uniformity,
# whole process, on one thread and on two.
#
#   LLVM 19:  opt -passes='require<uniformity>' -disable-output -disable-verify FILE
#   converge: converge -j 1 uniformity --format none FILE    (and -j 2)
#
# Like for like: `opt` also verifies the module unless told not to. converge's reader always makes
# its own IR checks (operand types, dominance of uses, phi incomings; `crates/ir/src/wellformed.rs`),
# a subset of LLVM's verifier, so both comparisons are printed: against opt with -disable-verify
# (converge's checks included: conservative for converge) and against opt with its verifier on.
# Every command runs REPS times (default 5) in
# alternation and each side's figure is the median; the ratios use the medians of the same run.
# Peak RSS is GNU time's maximum resident set size, page faults its count of minor faults (medians
# too): on a virtual machine each fault costs microseconds of system time (`crates/cli/src/alloc.rs`). CPU time (user + system, GNU
# time) is printed beside the wall time: on a loaded machine a process waits for a core, and the
# wall-time ratio then says more about the other jobs than about either program.
#
# Answers: the same binaries print their results once more (`opt -passes='print<uniformity>'`,
# `converge --llvm-version 19 uniformity --format llvm`), and the two are compared as sorted lines
# with attribute-group references (` #N`) stripped: converge numbers attribute groups differently
# from opt's printer, and prints divergent arguments in order where LLVM 19 uses hash order.
#
# Usage: scripts/bench-e2e.sh [MODULE.ll]   (default build/bench/gpu-36mb.ll, generated once:
# `cargo run --release -p converge-gen --example big_module -- build/bench/gpu-36mb.ll --mb 36`)
# A module like issue 13's, on which LLVM's analysis does real work (docs/benchmarks-issue13.md):
# `cargo run --release -p converge-gen --example big_module -- build/bench/div-38mb.ll --divergent-cfgs --mb 38`
set -euo pipefail
cd "$(dirname "$0")/.."
opt19=${CONVERGE_OPT19:-/usr/lib/llvm-19/bin/opt}
reps=${REPS:-5}
[ -x /usr/bin/time ] || { echo "bench-e2e: /usr/bin/time (GNU time) is required" >&2; exit 2; }
[ -x "$opt19" ] || { echo "bench-e2e: LLVM 19 opt not found ($opt19)" >&2; exit 2; }
cargo build --release -q -p converge-cli
bin=${CONVERGE_BIN:-target/release/converge}
module=${1:-build/bench/gpu-36mb.ll}
if [ ! -f "$module" ]; then
  mkdir -p "$(dirname "$module")"
  cargo run --release -q -p converge-gen --example big_module -- "$module" --mb 36
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
calc() { awk "BEGIN { printf \"%.2f\", $1 }"; }
# run NAME CMD...: appends "seconds KB cpu-seconds minor-faults" of one run to $tmp/NAME.
run() {
  local name=$1
  shift
  local a b
  a=$EPOCHREALTIME
  /usr/bin/time -f '%M %U %S %R' -o "$tmp/rss" "$@" >/dev/null 2>&1
  b=$EPOCHREALTIME
  read -r kb user sys faults <"$tmp/rss"
  echo "$(calc "$b - $a") $kb $(calc "$user + $sys") $faults" >>"$tmp/$name"
}

bytes=$(stat -c %s "$module")
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for _ in $(seq "$reps"); do
  run opt "$opt19" -passes='require<uniformity>' -disable-output -disable-verify "$module"
  run optv "$opt19" -passes='require<uniformity>' -disable-output "$module"
  run j1 "$bin" -j 1 uniformity --format none "$module"
  run j2 "$bin" -j 2 uniformity --format none "$module"
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)
t() { cut -d' ' -f1 "$tmp/$1" | median; }
m() { cut -d' ' -f2 "$tmp/$1" | median; }
u() { cut -d' ' -f3 "$tmp/$1" | median; }
pf() { cut -d' ' -f4 "$tmp/$1" | median; }
to=$(t opt); tv=$(t optv); t1=$(t j1); t2=$(t j2)
echo "== $module ($(calc "$bytes / 1e6") MB; median of $reps runs; load average $load0 before, $load1 after)"
printf '  %-52s %7s s wall %7s s CPU  %7s faults  peak RSS %6.1f MiB\n' "LLVM 19 opt require<uniformity> -disable-verify" "$to" "$(u opt)" "$(pf opt)" "$(calc "$(m opt) / 1024")"
printf '  %-52s %7s s wall %7s s CPU  %7s faults  peak RSS %6.1f MiB\n' "LLVM 19 opt require<uniformity> (verifier on)" "$tv" "$(u optv)" "$(pf optv)" "$(calc "$(m optv) / 1024")"
printf '  %-52s %7s s wall %7s s CPU  %7s faults  peak RSS %6.1f MiB (%sx the file)\n' "converge -j 1 uniformity --format none" "$t1" "$(u j1)" "$(pf j1)" "$(calc "$(m j1) / 1024")" "$(calc "$(m j1) * 1024 / $bytes")"
printf '  %-52s %7s s wall %7s s CPU  %7s faults  peak RSS %6.1f MiB (%sx the file)\n' "converge -j 2 uniformity --format none" "$t2" "$(u j2)" "$(pf j2)" "$(calc "$(m j2) / 1024")" "$(calc "$(m j2) * 1024 / $bytes")"
echo "  speed-up (wall) against -disable-verify, on one thread: $(calc "$to / $t1")x (target >= 30x); on two: $(calc "$to / $t2")x (target >= 50x)"
echo "  speed-up (wall) against opt's verifier on, on one thread: $(calc "$tv / $t1")x; on two: $(calc "$tv / $t2")x"
echo "  speed-up (CPU time, one thread): $(calc "$(u opt) / $(u j1)")x (-disable-verify), $(calc "$(u optv) / $(u j1)")x (verifier on)"
echo "  converge phases, one thread: $("$bin" -j 1 uniformity --format none --time "$module" 2>&1 | tail -1)"

"$opt19" -passes='print<uniformity>' -disable-output -disable-verify "$module" 2>"$tmp/opt.txt"
"$bin" -j 1 uniformity --llvm-version 19 --format llvm "$module" >"$tmp/cv.txt"
norm() { sed -E 's/ #[0-9]+$//' "$1" | sort | md5sum | cut -c1-32; }
a=$(norm "$tmp/opt.txt"); b=$(norm "$tmp/cv.txt")
if [ "$a" = "$b" ]; then
  echo "  answers: same as opt 19 ($(wc -l <"$tmp/opt.txt") lines, $(grep -c DIVERGENT "$tmp/opt.txt") divergent, normalised md5 $a)"
else
  echo "  answers: DIFFERENT from opt 19 (normalised md5 $a vs $b)"
  exit 1
fi
