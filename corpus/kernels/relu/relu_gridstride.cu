#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// ReLU over a flat buffer with a grid-stride loop: the grid is capped, each thread walks
// the tensor with a stride of the whole grid.
__global__ void relu_gridstride_kernel(const float* __restrict__ x,
                                       float* __restrict__ y,
                                       long long n) {
    const long long stride = (long long)blockDim.x * gridDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        y[i] = fmaxf(x[i], 0.0f);
    }
}

// ---- host ----
torch::Tensor relu_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");

    auto y = torch::empty_like(x);
    const long long n = x.numel();
    if (n == 0) {
        return y;
    }
    const int threads = 256;
    long long blocks = (n + threads - 1) / threads;
    if (blocks > 4096) {
        blocks = 4096;  // grid-stride loop covers the rest
    }
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    relu_gridstride_kernel<<<(unsigned int)blocks, threads, 0, stream>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), n);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "relu_gridstride_kernel launch failed: ", cudaGetErrorString(err));
    return y;
}
