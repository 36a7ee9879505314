#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// tanh, one thread per element with a 64-bit flat index (the benchmark's current input
// has 1.6e9 elements, close to the int limit). tanhf is the accurate library function:
// exp-based rewrites lose relative accuracy near 0 or overflow for large |x|.
__global__ void tanh_thread_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = tanhf(__ldg(x + i));  // read-only path for the input
    }
}

// ---- host ----
torch::Tensor tanh_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");

    auto y = torch::empty_like(x);
    const int64_t n = x.numel();
    if (n == 0) {
        return y;
    }
    const int threads = 512;
    const int64_t blocks = (n + threads - 1) / threads;
    TORCH_CHECK(blocks <= 2147483647LL, "too many blocks for a 1-D grid");
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    tanh_thread_kernel<<<(unsigned int)blocks, threads, 0, stream>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "tanh_thread_kernel launch failed: ", cudaGetErrorString(err));
    return y;
}
