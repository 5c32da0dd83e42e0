#!/usr/bin/env bash
# Whole-process figures of `converge explore`: time to write the page and time for headless
# Chromium to load and lay it out (the page records performance.now() once its script has run and
# the layout is done), for generated functions of 100 and 1,000 blocks, plus Graphviz `dot -Tsvg`
# on `converge dot --uniformity` of the same functions for comparison (cut off after 60 s; not run
# above 1,000 blocks). 2,000 and 4,000 blocks show how the page scales.
# Usage: scripts/bench-explore.sh   (builds the release binary first; prints the machine load)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p converge-cli -p converge-gen --examples --bins
bin=target/release/converge
gen=target/release/examples/random_program
browser=${CONVERGE_CHROMIUM:-/usr/bin/chromium}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "machine: $(nproc) cores, load: $(uptime | sed 's/.*load average: //')"
"$gen" "$tmp/r100.ll" --blocks 100 --reducible
"$gen" "$tmp/r1000.ll" --blocks 1000 --reducible
"$gen" "$tmp/i100.ll" --blocks 100
"$gen" "$tmp/i1000.ll" --blocks 1000
"$gen" "$tmp/i2000.ll" --blocks 2000
"$gen" "$tmp/r4000.ll" --blocks 4000 --reducible
"$gen" "$tmp/i4000.ll" --blocks 4000
for f in r100 i100 r1000 i1000 i2000 r4000 i4000; do
  /usr/bin/time -f "%e %U" -o "$tmp/t" "$bin" explore "$tmp/$f.ll" -o "$tmp/$f.html" 2>/dev/null
  read -r wall user < "$tmp/t"
  size=$(stat -c %s "$tmp/$f.html")
  load="(no browser)"
  if [ -x "$browser" ]; then
    prof=$(mktemp -d)
    ms=$(timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
      --disable-background-networking --disable-component-update --disable-sync \
      --user-data-dir="$prof" --window-size=1400,1000 --dump-dom "file://$tmp/$f.html" 2>/dev/null |
      grep -o 'data-ready-ms="[0-9]*"' | grep -o '[0-9]*' || echo "?")
    rm -rf "$prof"
    load="${ms} ms in the browser"
  fi
  dotsec="(no dot)"
  if [ "${f#?}" -gt 1000 ]; then
    dotsec="(not run)"
  elif command -v dot >/dev/null; then
    "$bin" dot --uniformity "$tmp/$f.ll" > "$tmp/$f.dot"
    if /usr/bin/time -f "%e" -o "$tmp/d" timeout 60 dot -Tsvg "$tmp/$f.dot" -o /dev/null 2>/dev/null; then
      dotsec="$(cat "$tmp/d") s"
    else
      dotsec="> 60 s (stopped)"
    fi
  fi
  echo "$f: explore ${wall} s wall, ${user} s user, ${size} bytes; page ready after ${load}; graphviz dot -Tsvg: ${dotsec}"
done
