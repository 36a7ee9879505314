#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// GELU, tanh approximation (GPT-2 / minGPT "NewGELU"):
//   0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
// written out literally, one thread per element.
#define GELU_SQRT_2_OVER_PI 0.7978845608028654f
#define GELU_CUBIC_COEFF 0.044715f

__global__ void new_gelu_thread_kernel(const float* __restrict__ x, float* __restrict__ y, int n) {
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        const float v = x[idx];
        const float cube = v * v * v;
        const float inner = GELU_SQRT_2_OVER_PI * (v + GELU_CUBIC_COEFF * cube);
        y[idx] = 0.5f * v * (1.0f + tanhf(inner));
    }
}

// ---- host ----
torch::Tensor new_gelu_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    TORCH_CHECK(x.numel() < (1LL << 31), "32-bit indexing: x has too many elements");

    auto out = torch::empty_like(x);
    const int n = (int)x.numel();
    if (n == 0) {
        return out;
    }
    const int block_size = 256;
    const int num_blocks = (n + block_size - 1) / block_size;
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    new_gelu_thread_kernel<<<num_blocks, block_size, 0, stream>>>(x.data_ptr<float>(), out.data_ptr<float>(), n);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "new_gelu_thread_kernel launch failed: ", cudaGetErrorString(err));
    return out;
}
