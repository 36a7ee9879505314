#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// Lowest finite float: identity of max for finite inputs.
#define SOFTMAX_NEG_BIG (-3.402823466e+38f)

// One block per row, three passes: row max, sum of exp(x - max), scale.
// Both reductions are shared-memory trees; BLOCK must be a power of two.
template <int BLOCK>
__global__ void softmax_block_kernel(const float* __restrict__ x, float* __restrict__ y, int D) {
    __shared__ float red[BLOCK];
    const int tid = threadIdx.x;
    const float* xr = x + (size_t)blockIdx.x * D;
    float* yr = y + (size_t)blockIdx.x * D;

    // 1) max
    float m = SOFTMAX_NEG_BIG;
    for (int j = tid; j < D; j += BLOCK) {
        m = fmaxf(m, xr[j]);
    }
    red[tid] = m;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = fmaxf(red[tid], red[tid + s]);
        }
        __syncthreads();
    }
    const float row_max = red[0];
    __syncthreads();  // every thread has read red[0] before it is overwritten below

    // 2) sum of exponentials; the exponentials are stashed in y
    float sum = 0.0f;
    for (int j = tid; j < D; j += BLOCK) {
        const float e = expf(xr[j] - row_max);
        yr[j] = e;
        sum += e;
    }
    red[tid] = sum;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] += red[tid + s];
        }
        __syncthreads();
    }
    const float inv_sum = 1.0f / red[0];

    // 3) normalise (each thread rescales the entries it wrote itself)
    for (int j = tid; j < D; j += BLOCK) {
        yr[j] *= inv_sum;
    }
}

// ---- host ----
torch::Tensor softmax_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.dim() == 2, "x must be 2-D [B, D]");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");

    const int rows = x.size(0);
    const int D = x.size(1);
    auto y = torch::empty_like(x);
    if (rows == 0 || D == 0) return y;

    constexpr int kBlock = 256;
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    softmax_block_kernel<kBlock><<<rows, kBlock, 0, stream>>>(x.data_ptr<float>(), y.data_ptr<float>(), D);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "softmax_block_kernel launch failed");
    return y;
}
