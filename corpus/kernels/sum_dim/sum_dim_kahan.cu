#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

// Sum over the middle dimension of a contiguous [outer, R, inner] view.
// One thread per output element (o, j); consecutive threads read consecutive j (coalesced).
// Kahan-compensated accumulation keeps long reductions accurate.
__global__ void sum_middle_kahan_kernel(const float* __restrict__ x,
                                        float* __restrict__ out,
                                        long long outer, long long R, long long inner) {
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long total = outer * inner;
    if (idx < total) {
        const long long o = idx / inner;
        const long long j = idx - o * inner;
        const float* p = x + o * R * inner + j;
        float sum = 0.0f;
        float comp = 0.0f;  // running compensation for lost low-order bits
        for (long long r = 0; r < R; ++r) {
            const float term = p[r * inner] - comp;
            const float t = sum + term;
            comp = (t - sum) - term;
            sum = t;
        }
        out[idx] = sum;
    }
}

// ---- host ----
torch::Tensor sum_dim_forward(torch::Tensor x, int64_t dim) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    TORCH_CHECK(x.dim() == 3, "expected a 3-D tensor [B, K, D]");
    TORCH_CHECK(dim == 1, "this kernel reduces dim 1");

    const long long outer = x.size(0);
    const long long R = x.size(1);
    const long long inner = x.size(2);
    auto out = torch::empty({x.size(0), 1, x.size(2)}, x.options());

    const long long total = outer * inner;
    if (total == 0) return out;
    const int threads = 128;
    const long long blocks = (total + threads - 1) / threads;
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    sum_middle_kahan_kernel<<<(unsigned int)blocks, threads, 0, stream>>>(
        x.data_ptr<float>(), out.data_ptr<float>(), outer, R, inner);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}
