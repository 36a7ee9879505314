#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// Max over the middle dimension of a contiguous [B, K, D] tensor, output [B, D].
// One thread per output element (b, d); neighbouring threads read neighbouring d, so every
// step down K is a coalesced row read. Four independent running maxima break the dependency
// chain of a single accumulator; max is exact, so splitting the order changes no bit.
__global__ void max_middle_ilp_kernel(const float* __restrict__ x, float* __restrict__ out,
                                      long long B, long long K, long long D) {
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= B * D) return;
    const long long b = idx / D;
    const long long d = idx - b * D;
    const float* p = x + b * K * D + d;

    // Seeded with row 0 (K >= 1 is checked on the host), so no -inf sentinel is needed.
    float m0 = p[0], m1 = m0, m2 = m0, m3 = m0;
    long long k = 1;
    for (; k + 3 < K; k += 4) {
        const float a0 = p[k * D];
        const float a1 = p[(k + 1) * D];
        const float a2 = p[(k + 2) * D];
        const float a3 = p[(k + 3) * D];
        m0 = a0 > m0 ? a0 : m0;
        m1 = a1 > m1 ? a1 : m1;
        m2 = a2 > m2 ? a2 : m2;
        m3 = a3 > m3 ? a3 : m3;
    }
    for (; k < K; ++k) {  // the last K - 1 mod 4 rows
        const float a = p[k * D];
        m0 = a > m0 ? a : m0;
    }
    m0 = m1 > m0 ? m1 : m0;
    m2 = m3 > m2 ? m3 : m2;
    out[idx] = m2 > m0 ? m2 : m0;
}

// ---- host ----
torch::Tensor max_dim_forward(torch::Tensor x, int64_t dim) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    TORCH_CHECK(x.dim() == 3, "expected a 3-D tensor [B, K, D]");
    TORCH_CHECK(dim == 1, "this kernel reduces dim 1");
    TORCH_CHECK(x.size(1) >= 1, "max over an empty dimension");

    const long long B = x.size(0);
    const long long K = x.size(1);
    const long long D = x.size(2);
    auto out = torch::empty({x.size(0), x.size(2)}, x.options());

    const long long total = B * D;
    if (total == 0) return out;
    const int threads = 256;
    const long long blocks = (total + threads - 1) / threads;
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    max_middle_ilp_kernel<<<(unsigned int)blocks, threads, 0, stream>>>(
        x.data_ptr<float>(), out.data_ptr<float>(), B, K, D);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "max_middle_ilp_kernel: ", cudaGetErrorString(err));
    return out;
}
