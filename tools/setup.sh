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

# Two files of Stryker's mutation-testing-elements (npm, Apache-2.0), fetched, not committed, each
# pinned by the SHA-256 of its package: the published JSON schema of its reports, which `kaudit
# report --format mte` output is validated against in tests/reports, and the viewer bundle that
# `kaudit report --format mte-html` inlines into its pages.
TOOLS_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/kaudit-tools"
MTE_VERSION=3.8.4
# fetch_npm_file PACKAGE SHA256 PATH_IN_PACKAGE OUT WHAT_NEEDS_IT
fetch_npm_file() {
  [ -f "$4" ] && return 0
  mkdir -p "$TOOLS_DIR"
  local tgz="$TOOLS_DIR/$1-$MTE_VERSION.tgz"
  if curl -fsSL --retry 3 -o "$tgz" "https://registry.npmjs.org/$1/-/$1-$MTE_VERSION.tgz" &&
     echo "$2  $tgz" | sha256sum -c --quiet - &&
     tar -xzOf "$tgz" "package/$3" > "$4.tmp"; then
    mv "$4.tmp" "$4"
  else
    rm -f "$4.tmp"
    echo "kaudit setup: warning: could not fetch $1 from registry.npmjs.org; $5" >&2
  fi
  rm -f "$tgz"
}
fetch_npm_file mutation-testing-report-schema 8cbd38548cff2991c8740ad4996455e97cd932ac48df8533a0f1fa80a7f32ab3 \
  src/mutation-testing-report-schema.json "$TOOLS_DIR/mutation-testing-report-schema-$MTE_VERSION.json" \
  "the test that validates reports against it will be skipped"
fetch_npm_file mutation-testing-elements 8ad6a5d198c84cf3266faaebcdf21ce2372374d4651f7eae414763f8eeb4bf4b \
  dist/mutation-test-elements.js "$TOOLS_DIR/mutation-test-elements-$MTE_VERSION.js" \
  "kaudit report --format mte-html needs --viewer, and its test will be skipped"
