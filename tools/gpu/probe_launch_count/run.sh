#!/usr/bin/env bash
# A question for the CUDA backend (issue 24, item 3: launches are not counted there yet): do
# CUPTI's runtime-API callbacks see the launches of a library built by nvcc with its cudart
# static (as kaudit's GPU builds are), and does dladdr of the launched function tell the
# candidate's kernels from libtorch's? And do ATen's RecordFunction callbacks see matmul & co.?
# Usage, on a GPU machine with PyTorch: tools/gpu/probe_launch_count/run.sh [BUILD_DIR]. Not yet run.
# Builds and runs the probe; prints where CUPTI is.
set -u
cd "$(dirname "$0")"; OUTDIR=${1:-/tmp/kaudit-launch-probe}; mkdir -p "$OUTDIR"
CUDA=${CUDA_HOME:-/usr/local/cuda}
TP=$(python3 -c 'import torch,os; print(os.path.dirname(torch.__file__))')
CUPTI_INC=$CUDA/extras/CUPTI/include; CUPTI_LIB=$CUDA/extras/CUPTI/lib64
[ -f $CUPTI_INC/cupti.h ] || CUPTI_INC=$CUDA/include
[ -f $CUPTI_LIB/libcupti.so ] || CUPTI_LIB=$CUDA/lib64
ls $CUPTI_INC/cupti.h $CUPTI_LIB/libcupti.so* 2>&1 | head -3
$CUDA/bin/nvcc -shared -Xcompiler -fPIC -arch=sm_90 lib.cu -o "$OUTDIR/lib.so" || exit 1
g++ -std=c++17 -O1 main.cpp -o "$OUTDIR/probe" -I$TP/include -I$TP/include/torch/csrc/api/include -I$CUDA/include -I$CUPTI_INC \
  -L$TP/lib -Wl,-rpath,$TP/lib -ltorch -ltorch_cpu -ltorch_cuda -lc10 -lc10_cuda -L$CUPTI_LIB -Wl,-rpath,$CUPTI_LIB -lcupti \
  -L$CUDA/lib64 -lcudart -ldl -D_GLIBCXX_USE_CXX11_ABI=$(python3 -c 'import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))') 2>&1 | grep -E "error" | head -20
"$OUTDIR/probe" "$OUTDIR/lib.so" 2>&1 | head -60
