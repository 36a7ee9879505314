#!/usr/bin/env bash
# README command (a): set up, build, and run the main job -- the audit of every built-in oracle on
# the built-in corpus with the CPU backend. Extra arguments go to `kaudit audit` (e.g. --json).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh
exec ./build/tools/kaudit audit --corpus corpus "$@"
