#include <torch/extension.h>
#include <cuda_runtime.h>

// Exact GELU: 0.5 * x * (1 + erf(x / sqrt(2))), one thread per element.
#define GELU_INV_SQRT2 0.70710678118654752440f

__global__ void gelu_erf_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        const float v = in[idx];
        out[idx] = 0.5f * v * (1.0f + erff(v * GELU_INV_SQRT2));
    }
}

// ---- host ----
torch::Tensor gelu_forward(torch::Tensor input) {
    TORCH_CHECK(input.is_cuda(), "input must be a CUDA tensor");
    TORCH_CHECK(input.is_contiguous(), "input must be contiguous");
    TORCH_CHECK(input.dtype() == torch::kFloat32, "input must be float32");
    TORCH_CHECK(input.numel() <= 2147483647, "input too large for 32-bit indexing");

    auto output = torch::empty_like(input);
    int n = (int)input.numel();
    int block_size = 256;
    int num_blocks = (n + block_size - 1) / block_size;
    if (num_blocks > 0) {
        gelu_erf_kernel<<<num_blocks, block_size>>>(input.data_ptr<float>(), output.data_ptr<float>(), n);
    }
    return output;
}
