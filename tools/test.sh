#!/usr/bin/env bash
# README command (b): set up, build, and run the whole default test suite (tests labelled
# `heavy` are left out; run them with `ctest --test-dir build -L heavy`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh
ctest --preset "${KAUDIT_PRESET:-default}" -LE heavy "$@"
