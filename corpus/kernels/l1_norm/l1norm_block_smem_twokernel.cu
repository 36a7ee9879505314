#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// Kernel 1: one block per row sums |x| (strided loop, shared-memory tree) and stores the row's
// mean of |x| to a [B] scratch tensor. Kernel 2: one thread per element divides by its row's
// mean (2-D grid: blockIdx.y is the row).
template <int BLOCK>
__global__ void l1_row_mean_kernel(const float* __restrict__ x, float* __restrict__ row_mean,
                                   int D) {
    __shared__ float partial[BLOCK];
    const int tid = threadIdx.x;
    const float* xr = x + (size_t)blockIdx.x * D;

    float acc = 0.0f;
    for (int j = tid; j < D; j += BLOCK) {
        acc += fabsf(xr[j]);
    }
    partial[tid] = acc;
    __syncthreads();

    #pragma unroll
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) {
            partial[tid] += partial[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        row_mean[blockIdx.x] = partial[0] / (float)D;
    }
}

__global__ void l1_scale_kernel(const float* __restrict__ x, const float* __restrict__ row_mean,
                                float* __restrict__ y, int D) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= D) {
        return;
    }
    const size_t i = (size_t)blockIdx.y * D + j;
    y[i] = x[i] / row_mean[blockIdx.y];
}

// ---- host ----
torch::Tensor l1_normalize_rows(torch::Tensor x) {
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
    TORCH_CHECK(B <= 65535, "B must fit gridDim.y of the scale kernel");
    auto row_mean = torch::empty({B}, x.options());

    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    constexpr int kReduceThreads = 512;
    l1_row_mean_kernel<kReduceThreads><<<(unsigned int)B, kReduceThreads, 0, stream>>>(
        x.data_ptr<float>(), row_mean.data_ptr<float>(), (int)D);

    const int threads = 256;
    const dim3 grid((unsigned int)((D + threads - 1) / threads), (unsigned int)B);
    l1_scale_kernel<<<grid, threads, 0, stream>>>(x.data_ptr<float>(), row_mean.data_ptr<float>(),
                                                  y.data_ptr<float>(), (int)D);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "l1 norm kernels: ", cudaGetErrorString(err));
    return y;
}
