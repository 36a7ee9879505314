#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// LeakyReLU, one thread per element. The slope is a kernel argument (the module's
// negative_slope, 0.01 by default) rather than a baked-in constant.
__global__ void leaky_relu_thread_kernel(const float* __restrict__ x, float* __restrict__ y,
                                         float negative_slope, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;  // the last block runs past the end when n is not a multiple of the block
    }
    const float v = x[i];
    y[i] = v >= 0.0f ? v : v * negative_slope;
}

// ---- host ----
torch::Tensor leaky_relu_forward(torch::Tensor x, double negative_slope) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    // The kernel indexes with int.
    TORCH_CHECK(x.numel() <= 2147483647, "x has too many elements for 32-bit indexing");

    auto y = torch::empty_like(x);
    const int n = static_cast<int>(x.numel());
    if (n == 0) {
        return y;  // no blocks to launch
    }
    const int threads = 128;
    const int blocks = (n + threads - 1) / threads;
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    leaky_relu_thread_kernel<<<blocks, threads, 0, stream>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), static_cast<float>(negative_slope), n);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "leaky_relu_thread_kernel launch failed: ", cudaGetErrorString(err));
    return y;
}
