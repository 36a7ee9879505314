#include <torch/extension.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <c10/cuda/CUDAException.h>
#include <cstdint>

// GELU, exact form, in float32: 0.5 * v * (1 + erf(v / sqrt(2))).
__device__ __forceinline__ float gelu_erf_f32(float v) {
    const float kRsqrt2 = 0.7071067811865475f;
    return 0.5f * v * (1.0f + erff(v * kRsqrt2));
}

// One __half2 pair per thread over the n2 = n / 2 pairs; when n is odd the thread whose pair
// index is n2 handles the single leftover element (index n - 1) with scalar loads.
__global__ void gelu_half2_pair_kernel(const __half2* __restrict__ in2, __half2* __restrict__ out2,
                                       const __half* __restrict__ in, __half* __restrict__ out,
                                       int64_t n) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t n2 = n / 2;
    if (i < n2) {
        const float2 v = __half22float2(in2[i]);
        out2[i] = __floats2half2_rn(gelu_erf_f32(v.x), gelu_erf_f32(v.y));
    } else if (i == n2 && (n & 1)) {
        out[n - 1] = __float2half_rn(gelu_erf_f32(__half2float(in[n - 1])));
    }
}

// ---- host ----
torch::Tensor gelu_fp16_pairs(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat16, "x must be float16");
    auto out = torch::empty_like(x);
    const int64_t n = x.numel();
    if (n == 0) return out;

    const __half* xp = reinterpret_cast<const __half*>(x.data_ptr<at::Half>());
    __half* op = reinterpret_cast<__half*>(out.data_ptr<at::Half>());
    TORCH_CHECK(reinterpret_cast<uintptr_t>(xp) % 4 == 0 && reinterpret_cast<uintptr_t>(op) % 4 == 0,
                "x and out must be 4-byte aligned for __half2 access");

    const int threads = 256;
    const int64_t work = n / 2 + (n & 1);  // pairs, plus one thread for an odd last element
    const int64_t blocks = (work + threads - 1) / threads;
    TORCH_CHECK(blocks <= 2147483647, "tensor too large for a 1-D grid");
    gelu_half2_pair_kernel<<<(unsigned int)blocks, threads>>>(
        reinterpret_cast<const __half2*>(xp), reinterpret_cast<__half2*>(op), xp, op, n);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}
