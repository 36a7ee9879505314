#include <torch/extension.h>
#include <cuda_runtime.h>

// Block-wide sum through dynamic shared memory (blockDim.x floats, blockDim.x a power of two).
// Every thread of the block must call it; the result is returned to all threads.
__device__ float block_sum(float v, float* sbuf) {
    const int tid = threadIdx.x;
    sbuf[tid] = v;
    __syncthreads();
    for (int stride = blockDim.x >> 1; stride > 0; stride >>= 1) {
        if (tid < stride) sbuf[tid] += sbuf[tid + stride];
        __syncthreads();
    }
    const float total = sbuf[0];
    __syncthreads();  // sbuf may be reused by the next call
    return total;
}

// One block per row, two passes over x: mean, then variance of (x - mean).
__global__ void layernorm_twopass_kernel(const float* __restrict__ input,
                                         const float* __restrict__ weight,
                                         const float* __restrict__ bias,
                                         float* __restrict__ output,
                                         int D, float eps) {
    extern __shared__ float sbuf[];
    const float* in_row = input + (size_t)blockIdx.x * D;
    float* out_row = output + (size_t)blockIdx.x * D;

    float local = 0.0f;
    for (int i = threadIdx.x; i < D; i += blockDim.x) local += in_row[i];
    const float mean = block_sum(local, sbuf) / D;

    float local_sq = 0.0f;
    for (int i = threadIdx.x; i < D; i += blockDim.x) {
        const float c = in_row[i] - mean;
        local_sq += c * c;
    }
    const float var = block_sum(local_sq, sbuf) / D;
    const float inv_std = 1.0f / sqrtf(var + eps);

    for (int i = threadIdx.x; i < D; i += blockDim.x) {
        out_row[i] = (in_row[i] - mean) * inv_std * weight[i] + bias[i];
    }
}

// ---- host ----
torch::Tensor layer_norm_cuda(torch::Tensor input, torch::Tensor weight, torch::Tensor bias, double eps) {
    TORCH_CHECK(input.is_cuda(), "input must be a CUDA tensor");
    TORCH_CHECK(weight.is_cuda(), "weight must be a CUDA tensor");
    TORCH_CHECK(bias.is_cuda(), "bias must be a CUDA tensor");
    TORCH_CHECK(input.is_contiguous(), "input must be contiguous");

    const int64_t D = input.size(input.dim() - 1);
    const int64_t rows = input.numel() / (D > 0 ? D : 1);
    TORCH_CHECK(weight.numel() == D, "weight size mismatch");
    TORCH_CHECK(bias.numel() == D, "bias size mismatch");

    auto output = torch::empty_like(input);
    if (rows == 0 || D == 0) return output;

    const int threads = 256;
    const size_t smem = threads * sizeof(float);
    layernorm_twopass_kernel<<<(unsigned int)rows, threads, smem>>>(
        input.data_ptr<float>(), weight.contiguous().data_ptr<float>(), bias.contiguous().data_ptr<float>(),
        output.data_ptr<float>(), (int)D, (float)eps);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        TORCH_CHECK(false, "layernorm_twopass_kernel: ", cudaGetErrorString(err));
    }
    return output;
}
