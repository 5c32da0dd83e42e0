#!/usr/bin/env bash
# Prints one md5 per (subcommand, format, input): compare two builds' outputs byte for byte.
# Usage: scripts/cli-outputs.sh BINARY INPUT.ll...
# Each line hashes a run's stdout plus its exit code; for `-o FILE` runs (and `explore`, which only
# writes a file) the file's contents are hashed too. Every subcommand and format is covered, with
# and without `--function` (the first function defined in the input). `check-transform` runs on
# every `X.before.ll` given whose `X.after.ll` exists. Its elapsed-time figures (`in 0.012s`,
# `"seconds": …`) are masked: they are measurements, not outputs.
# MASK_SCHEMA=1 drops the top-level `"schema": "converge.<report>/1"` field of JSON documents
# (added by issue 15), to compare against outputs of a build that predates it.
set -uo pipefail
bin=$1; shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

hash() { md5sum | cut -c1-12; }

# run LABEL FILE ARGS...: hashes stdout + exit code (+ the -o file when ARGS contain `-o $tmp/out`).
run() {
  local label=$1 f=$2; shift 2
  rm -f "$tmp/out"
  local out
  out=$("$bin" "$@" 2>/dev/null; echo "exit=$?")
  if [ -e "$tmp/out" ]; then out+=$'\n--file--\n'$(cat "$tmp/out"); fi
  out=$(printf '%s' "$out" | sed -E 's/in [0-9]+\.[0-9]+s/in Ns/g; s/"(seconds|elapsed[a-z_]*)": [0-9.e-]+/"\1": N/g')
  if [ "${MASK_SCHEMA:-0}" = 1 ]; then
    out=$(printf '%s' "$out" | perl -0pe 's/,\n  "schema": "converge\.[a-z-]+\/1"\n\}/\n}/g; s/\n  "schema": "converge\.[a-z-]+\/1",//g')
  fi
  echo "$(printf '%s' "$out" | hash)  $label  $f"
}

cmds=("stats --format text" "stats --format json" "stats --format none"
      "cycles --format text" "cycles --format llvm" "cycles --format json" "cycles --format none"
      "cycles --format llvm --llvm 19" "cycles --format json --llvm-version 19"
      "uniformity --format text" "uniformity --format llvm" "uniformity --format json"
      "uniformity --format none"
      "uniformity --format llvm --llvm-version 19" "uniformity --format json --mode precise"
      "uniformity --format text --mode precise" "uniformity --format llvm --target nvptx"
      "verify --format text" "verify --format llvm" "verify --format json" "verify --format none"
      "verify --format llvm --llvm 19"
      "explain --format text" "explain --format json" "explain --format text --mode precise"
      "dot" "dot --uniformity --instructions" "dot --svg"
      "simulate --format text --step-limit 2000" "simulate --format json --step-limit 2000"
      "simulate --format text --all-hierarchies --step-limit 2000 --enumeration-cap 8"
      "insert-tokens")

for f in "$@"; do
  fn=$(sed -nE 's/^define [^@]*@("?[^"( ]+"?)\(.*/\1/p' "$f" | head -1)
  for cmd in "${cmds[@]}"; do
    # shellcheck disable=SC2086
    run "$cmd" "$f" $cmd "$f"
    if [ -n "$fn" ]; then
      # shellcheck disable=SC2086
      run "$cmd --function $fn" "$f" $cmd --function "$fn" "$f"
    fi
  done
  for cmd in "stats --format json" "cycles --format llvm" "uniformity --format json" \
             "verify --format text" "dot" "insert-tokens" "explore"; do
    # shellcheck disable=SC2086
    run "$cmd -o FILE" "$f" $cmd -o "$tmp/out" "$f"
  done
  case $f in
    *.before.ll)
      a=${f%.before.ll}.after.ll
      if [ -e "$a" ]; then
        run "check-transform" "$f" check-transform "$f" "$a"
        run "check-transform --format json" "$f" check-transform --format json "$f" "$a"
      fi;;
  esac
done
