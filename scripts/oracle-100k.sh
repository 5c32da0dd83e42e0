#!/usr/bin/env bash
# The documented 100,000-program run of the soundness oracle in precise mode (docs/oracle.md,
# "The 100,000-program run"): seeds 1-100,000 in 40 chunks of 2,500, one chunk at a time, each
# chunk's log in OUT/chunk-K.log, then the chunks' figures summed. A chunk fails (and this script
# exits 1) on any violation or panic.
# Usage: scripts/oracle-100k.sh [OUT]   (OUT defaults to build/oracle-100k)
# Env: CHUNKS (default 40), EXPLORE (candidate input sets, default 2), WORKERS (default 2).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/oracle-100k}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cargo test --release -p converge-oracle --test oracle_random --no-run 2>&1 | tail -1
bin=$(ls -t target/release/deps/oracle_random-* | grep -v '\.d$' | head -1)
# A copy, so that a rebuild during the run does not change the code under test.
cp "$bin" "$out/oracle_random"
failed=0
for k in $(seq 0 $((${CHUNKS:-40} - 1))); do
  seed=$((1 + k * 2500))
  (cd crates/oracle && CONVERGE_ORACLE_INPUTS=1 CONVERGE_ORACLE_EXPLORE=${EXPLORE:-2} \
    CONVERGE_ORACLE_CASES=2500 CONVERGE_ORACLE_SEED=$seed CONVERGE_ORACLE_WORKERS=${WORKERS:-2} \
    "$out/oracle_random" precise_mode_is_sound_on_random_programs --nocapture) \
    > "$out/chunk-$k.log" 2>&1 || failed=1
  echo "chunk $k (seeds $seed-$((seed + 2499))): $(grep -o 'violations [0-9]* in [0-9]* programs' "$out/chunk-$k.log" || echo 'no summary line')"
done
python3 - "$out" <<'PY'
import glob, re, sys
t = dict(chunks=0, progs=0, tok=0, panic=0, fin=0.0, hier=0.0, claimed=0, cov=0.0, exe=0.0, br=0, split=0.0, viol=0)
pat = (r'(\d+) programs \((\d+) with tokens, up to 64 threads; (\d+) panicked\): finished ([\d.]+)%.*'
       r'several hierarchies ([\d.]+)% \(mean [\d.]+\); claimed-uniform values (\d+) of which covered '
       r'([\d.]+)% \(executed at all ([\d.]+)%\).*conditional branches executed (\d+), split by a '
       r'converged instance ([\d.]+)%; violations (\d+)')
for f in glob.glob(sys.argv[1] + '/chunk-*.log'):
    m = re.search(pat, open(f).read())
    if not m:
        print(f'{f}: no summary line'); continue
    p, c, b = int(m[1]), int(m[6]), int(m[9])
    t['chunks'] += 1; t['progs'] += p; t['tok'] += int(m[2]); t['panic'] += int(m[3])
    t['fin'] += float(m[4]) * p; t['hier'] += float(m[5]) * p; t['claimed'] += c
    t['cov'] += float(m[7]) * c; t['exe'] += float(m[8]) * c; t['br'] += b
    t['split'] += float(m[10]) * b; t['viol'] += int(m[11])
if t['progs']:
    print(f"{t['chunks']} chunks, {t['progs']} programs ({t['tok']} with tokens), {t['panic']} panicked, "
          f"finished {t['fin']/t['progs']:.1f}%, several hierarchies {t['hier']/t['progs']:.1f}%, "
          f"claimed-uniform values {t['claimed']}, covered {t['cov']/max(t['claimed'],1):.1f}% "
          f"(executed {t['exe']/max(t['claimed'],1):.1f}%), branches {t['br']}, split "
          f"{t['split']/max(t['br'],1):.1f}%, violations {t['viol']}")
PY
exit $failed
