#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// One block per row: strided sum of squares, shared-memory tree, then every thread divides its
// columns by the row norm. BLOCK is a power of two.
template <int BLOCK>
__global__ void l2norm_row_kernel(const float* __restrict__ x, float* __restrict__ y, int D) {
    __shared__ float ssum[BLOCK];
    const int tid = threadIdx.x;
    const float* xr = x + (size_t)blockIdx.x * D;
    float* yr = y + (size_t)blockIdx.x * D;

    float acc = 0.0f;
    for (int j = tid; j < D; j += BLOCK) {
        const float v = xr[j];
        acc = fmaf(v, v, acc);
    }
    ssum[tid] = acc;
    __syncthreads();

    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) {
            ssum[tid] += ssum[tid + s];
        }
        __syncthreads();
    }
    // ssum[0] is final after the last barrier of the loop and nobody writes it again.
    const float norm = sqrtf(ssum[0]);

    for (int j = tid; j < D; j += BLOCK) {
        yr[j] = xr[j] / norm;
    }
}

// ---- host ----
torch::Tensor l2_normalize_rows(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    TORCH_CHECK(x.dim() == 2, "x must be [B, D]");

    const int64_t B = x.size(0);
    const int64_t D = x.size(1);
    auto y = torch::empty_like(x);
    if (B == 0 || D == 0) {
        return y;
    }
    TORCH_CHECK(D < ((int64_t)1 << 31), "rows too long for 32-bit indexing");

    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    constexpr int kThreads = 256;
    l2norm_row_kernel<kThreads><<<(unsigned int)B, kThreads, 0, stream>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), (int)D);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "l2norm_row_kernel: ", cudaGetErrorString(err));
    return y;
}
