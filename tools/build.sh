#!/usr/bin/env bash
# Installs dependencies (tools/setup.sh), configures and builds kaudit into build/.
# Idempotent: a second run rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
PRESET="${KAUDIT_PRESET:-default}"
if [ ! -f build/CMakeCache.txt ]; then
  cmake --preset "$PRESET"
fi
cmake --build --preset "$PRESET"
