#include <torch/extension.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>

// SiLU on __half storage, one element per thread: widen to float, compute, round once.
__global__ void silu_half_kernel(const __half* __restrict__ x, __half* __restrict__ y, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float v = __half2float(x[i]);
        const float s = 1.0f / (1.0f + expf(-v));
        y[i] = __float2half_rn(v * s);
    }
}

// ---- host ----
torch::Tensor silu_half_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kHalf, "x must be float16");
    TORCH_CHECK(x.numel() <= 2147483647, "too many elements for 32-bit indexing");

    auto y = torch::empty_like(x);
    const int n = (int)x.numel();
    if (n == 0) return y;

    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;
    const __half* xp = reinterpret_cast<const __half*>(x.data_ptr<at::Half>());
    __half* yp = reinterpret_cast<__half*>(y.data_ptr<at::Half>());
    silu_half_kernel<<<blocks, threads>>>(xp, yp, n);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "silu_half_kernel: ", cudaGetErrorString(err));
    return y;
}
