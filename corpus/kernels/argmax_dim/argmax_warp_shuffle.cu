#include <torch/extension.h>
#include <cuda_runtime.h>
#include <c10/cuda/CUDAException.h>

// One warp per row. Lane-local scan with strict '>' keeps the first maximum of its slice;
// the shuffle-down tree compares (value, index) and prefers the smaller index on ties.
__global__ void argmax_warp_kernel(const float* __restrict__ x, long long* __restrict__ out, int B, int D) {
    const int lane = threadIdx.x % warpSize;
    const int row = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    if (row < B) {  // warp-uniform: blockDim.x is a multiple of warpSize
        const float* xr = x + (size_t)row * D;
        float v = xr[0];
        int idx = 0;
        for (int j = lane; j < D; j += warpSize) {
            const float cur = xr[j];
            if (cur > v) {
                v = cur;
                idx = j;
            }
        }
        // Lanes whose slice had nothing larger than xr[0] report index 0, which is correct.
        for (int offset = warpSize / 2; offset > 0; offset >>= 1) {
            const float ov = __shfl_down_sync(0xffffffff, v, offset);
            const int oi = __shfl_down_sync(0xffffffff, idx, offset);
            if (ov > v || (ov == v && oi < idx)) {
                v = ov;
                idx = oi;
            }
        }
        if (lane == 0) {
            out[row] = idx;
        }
    }
}

// ---- host ----
torch::Tensor argmax_dim_cuda(torch::Tensor x, int64_t dim) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.dim() == 2 && dim == 1, "expects [B, D] reduced over dim 1");
    TORCH_CHECK(x.size(1) >= 1, "empty reduction");
    auto xc = x.contiguous();
    const int B = xc.size(0);
    const int D = xc.size(1);

    auto options = torch::TensorOptions().dtype(torch::kInt64).device(x.device());
    torch::Tensor out = torch::empty({B}, options);
    if (B == 0) return out;

    const int threads = 128;
    const int rows_per_block = threads / 32;
    const int blocks = (B + rows_per_block - 1) / rows_per_block;
    argmax_warp_kernel<<<blocks, threads>>>(xc.data_ptr<float>(), reinterpret_cast<long long*>(out.data_ptr<int64_t>()), B, D);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}
