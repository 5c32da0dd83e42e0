#!/usr/bin/env bash
# Writes the outputs of `explain` (text and json, --mode llvm and precise, the summary and
# `--value` on every value defined in every function), `dot` (plain and with uniformity) and
# `explore` of a build into one file per (input, command) under OUTDIR, to compare two builds
# byte for byte with `diff -r`. Usage: scripts/explain-outputs.sh BINARY OUTDIR INPUT.ll...
set -uo pipefail
bin=$1; out=$2; shift 2
mkdir -p "$out"
for f in "$@"; do
  key=$(printf '%s' "$f" | tr '/' '_')
  d="$out/$key"; mkdir -p "$d"
  for fmt in text json; do
    for mode in llvm precise; do
      "$bin" explain --format $fmt --mode $mode "$f" >"$d/summary.$fmt.$mode" 2>&1; echo "exit=$?" >>"$d/summary.$fmt.$mode"
    done
  done
  "$bin" dot "$f" >"$d/dot" 2>&1; echo "exit=$?" >>"$d/dot"
  "$bin" dot --uniformity --instructions "$f" >"$d/dot.u" 2>&1; echo "exit=$?" >>"$d/dot.u"
  "$bin" explore -o "$d/explore.html" "$f" >/dev/null 2>&1; echo "exit=$?" >"$d/explore.exit"
  # (function, value) pairs: arguments and named or numbered results in each definition.
  awk '
    /^define / { fn=$0; sub(/\(.*/, "", fn); sub(/.*@/, "", fn); infn=1;
                 hdr=$0; while (match(hdr, /%[-A-Za-z0-9_.]+[,)]/)) { v=substr(hdr, RSTART, RLENGTH-1); print fn "\t" v; hdr=substr(hdr, RSTART+RLENGTH) } next }
    /^}/ { infn=0; next }
    infn && /^[ \t]+%[-A-Za-z0-9_.]+ = / { v=$1; print fn "\t" v }
  ' "$f" | while IFS=$'\t' read -r fn v; do
    for fmt in text json; do
      for mode in llvm precise; do
        o="$d/value.$fn.${v#%}.$fmt.$mode"
        "$bin" explain --format $fmt --mode $mode --function "$fn" --value "$v" "$f" >"$o" 2>&1; echo "exit=$?" >>"$o"
      done
    done
  done
done
