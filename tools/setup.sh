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
