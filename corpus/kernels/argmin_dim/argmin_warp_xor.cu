#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// (value, index) order for argmin: smaller value wins, equal values -> smaller index wins,
// which reproduces torch.argmin's "first occurrence" rule whatever order pairs are merged in.
__device__ __forceinline__ bool precedes(float v1, int i1, float v2, int i2) {
    return (v1 < v2) || (v1 == v2 && i1 < i2);
}

// One warp per row, WARPS rows per block. Each lane scans a strided slice, then a butterfly
// (__shfl_xor_sync) merges the pairs so every lane ends with the row's answer.
template <int WARPS>
__global__ void argmin_warp_xor_kernel(const float* __restrict__ x, long long* __restrict__ out,
                                       int B, int D) {
    const int lane = threadIdx.x & 31;
    const int row = blockIdx.x * WARPS + (threadIdx.x >> 5);
    // The whole warp leaves together (row is warp-uniform), so the full mask below stays valid.
    if (row >= B) return;
    const float* xr = x + (size_t)row * D;

    // Sentinel (+inf, D): loses to every real element, even +inf, through the index tie-break;
    // lanes with no element (D < 32) keep it.
    float v = __int_as_float(0x7f800000);
    int idx = D;
    for (int j = lane; j < D; j += 32) {
        const float cur = xr[j];
        if (precedes(cur, j, v, idx)) {
            v = cur;
            idx = j;
        }
    }
    #pragma unroll
    for (int mask = 16; mask > 0; mask >>= 1) {
        const float ov = __shfl_xor_sync(0xffffffff, v, mask);
        const int oi = __shfl_xor_sync(0xffffffff, idx, mask);
        if (precedes(ov, oi, v, idx)) {
            v = ov;
            idx = oi;
        }
    }
    if (lane == 0) {
        out[row] = (long long)idx;
    }
}

// ---- host ----
torch::Tensor argmin_dim_cuda(torch::Tensor x, int64_t dim) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    TORCH_CHECK(x.dim() == 2 && (dim == 1 || dim == -1), "expects [B, D] reduced over dim 1");
    TORCH_CHECK(x.size(1) >= 1, "argmin of an empty dimension");

    const int B = x.size(0);
    const int D = x.size(1);
    auto out = torch::empty({B}, torch::TensorOptions().dtype(torch::kInt64).device(x.device()));
    if (B == 0) return out;

    constexpr int kWarps = 8;
    const int blocks = (B + kWarps - 1) / kWarps;
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    argmin_warp_xor_kernel<kWarps><<<blocks, kWarps * 32, 0, stream>>>(
        x.data_ptr<float>(), reinterpret_cast<long long*>(out.data_ptr<int64_t>()), B, D);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "argmin_warp_xor_kernel: ", cudaGetErrorString(err));
    return out;
}
