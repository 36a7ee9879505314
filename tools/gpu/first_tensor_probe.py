# On a fresh CUDA process: is a read below the first tensor PyTorch's caching allocator hands out
# (or far above it) an illegal address? Oracle mode's device memory keeps an unmapped guard below
# its first segment (runtime/cpu/device_memory.h); this measures what an H200 does instead.
# Usage: python3 tools/gpu/first_tensor_probe.py SIZE_BYTES OFFSET_ELEMENTS   (negative: below)
# One probe per process (an illegal address ends the context): tools/gpu/first_tensor_probe.sh.
import sys

import torch
from torch.utils.cpp_extension import load_inline

SOURCE = r'''
#include <torch/extension.h>
__global__ void read_at(const float* x, long long offset, float* out) { out[0] = x[offset]; }
torch::Tensor probe(torch::Tensor x, int64_t offset, torch::Tensor out) {
  read_at<<<1, 1>>>(x.data_ptr<float>(), (long long)offset, out.data_ptr<float>());
  return out;
}
'''
module = load_inline("first_tensor_probe", cpp_sources="torch::Tensor probe(torch::Tensor x, int64_t offset, torch::Tensor out);",
                     cuda_sources=SOURCE, functions=["probe"], verbose=False)
size, offset = int(sys.argv[1]), int(sys.argv[2])
x = torch.rand(size // 4, device="cuda")  # the process's first device allocation
out = torch.zeros(1, device="cuda")
try:
    module.probe(x, offset, out)
    torch.cuda.synchronize()
    print(f"size {size} offset {offset}: ok, read {out.item()!r} (x at {x.data_ptr():#x})")
except RuntimeError as e:
    print(f"size {size} offset {offset}: {str(e).splitlines()[0]} (x at {x.data_ptr():#x})")
