#!/usr/bin/env bash
# Installs everything kaudit needs on Debian 12 (bookworm) and configures the build.
# Idempotent: packages already present are skipped by apt; re-running is cheap.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  libclang-19-dev libclang-cpp19-dev llvm-19-dev clang-19   # mutation rewriter (LibTooling)
  libtorch-dev python3-torch                                 # references: export (Python) and run (C++)
  libtbb-dev                                                 # block-parallel emulator, parallel compiles
  nlohmann-json3-dev                                         # every file format
  libgtest-dev libgmock-dev libbenchmark-dev                 # tests and benchmarks
  libboost-context-dev                                       # fibers for barrier/warp emulation
  libseccomp-dev                                             # the sandbox's system-call filter
  libclang-rt-19-dev                                         # libFuzzer for the loaders' harnesses (tools/fuzz.sh)
  python3-jsonschema curl                                    # the reports' schema check (tests/reports)
  chromium                                                   # the HTML report, rendered headless (tests/reports)
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "kaudit setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ ! -x /usr/local/cuda/bin/nvcc ] && [ ! -f /usr/local/cuda/lib64/libnvrtc.so ]; then
  echo "kaudit setup: warning: no CUDA toolkit at /usr/local/cuda; NVRTC features will be unavailable" >&2
fi

# The published JSON schema of mutation-testing-elements reports (npm package
# mutation-testing-report-schema, Apache-2.0), which `kaudit report --format mte` output is
# validated against in tests/reports. Fetched, not committed; pinned by its SHA-256.
MTE_VERSION=3.8.4
MTE_SHA256=8cbd38548cff2991c8740ad4996455e97cd932ac48df8533a0f1fa80a7f32ab3
TOOLS_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/kaudit-tools"
MTE_SCHEMA="$TOOLS_DIR/mutation-testing-report-schema-$MTE_VERSION.json"
if [ ! -f "$MTE_SCHEMA" ]; then
  mkdir -p "$TOOLS_DIR"
  tgz="$TOOLS_DIR/mte-$MTE_VERSION.tgz"
  if curl -fsSL --retry 3 -o "$tgz" \
       "https://registry.npmjs.org/mutation-testing-report-schema/-/mutation-testing-report-schema-$MTE_VERSION.tgz" &&
     echo "$MTE_SHA256  $tgz" | sha256sum -c --quiet - &&
     tar -xzOf "$tgz" package/src/mutation-testing-report-schema.json > "$MTE_SCHEMA.tmp"; then
    mv "$MTE_SCHEMA.tmp" "$MTE_SCHEMA"
  else
    rm -f "$MTE_SCHEMA.tmp"
    echo "kaudit setup: warning: could not fetch the mutation-testing-report schema from registry.npmjs.org;" \
         "the test that validates reports against it will be skipped" >&2
  fi
  rm -f "$tgz"
fi
