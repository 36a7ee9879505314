#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

__device__ __forceinline__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

// Block sum for blockDim.x a multiple of 32 (<= 1024): shuffle within each warp, one shared slot
// per warp, then warp 0 adds the slots. The result is valid in thread 0 only.
__device__ float block_sum(float v, float* warp_slots) {
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    v = warp_sum(v);
    if (lane == 0) warp_slots[warp] = v;
    __syncthreads();
    const int nwarps = blockDim.x >> 5;
    v = (threadIdx.x < nwarps) ? warp_slots[lane] : 0.0f;
    if (warp == 0) v = warp_sum(v);
    return v;
}

// Pass 1: each block writes the sum of its grid-stride share to partials[blockIdx.x].
// No atomics: the result does not depend on block scheduling.
__global__ void huber_partial_kernel(const float* __restrict__ pred, const float* __restrict__ targ,
                                     float* __restrict__ partials, long long n, float beta) {
    __shared__ float warp_slots[32];
    const float half_beta = 0.5f * beta;
    float acc = 0.0f;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)blockDim.x * gridDim.x) {
        const float d = fabsf(pred[i] - targ[i]);
        // PyTorch's form: 0.5 * d^2 / beta inside, d - 0.5 * beta outside.
        acc += (d < beta) ? 0.5f * d * d / beta : d - half_beta;
    }
    const float total = block_sum(acc, warp_slots);
    if (threadIdx.x == 0) partials[blockIdx.x] = total;
}

// Pass 2: one block adds the partials in a fixed order and divides by n (the mean).
__global__ void huber_finish_kernel(const float* __restrict__ partials, int num_partials,
                                    float* __restrict__ out, long long n) {
    __shared__ float warp_slots[32];
    float acc = 0.0f;
    for (int i = threadIdx.x; i < num_partials; i += blockDim.x) acc += partials[i];
    const float total = block_sum(acc, warp_slots);
    if (threadIdx.x == 0) out[0] = total / (float)n;
}

// ---- host ----
torch::Tensor huber_loss_twopass(torch::Tensor predictions, torch::Tensor targets, double beta) {
    TORCH_CHECK(predictions.is_cuda(), "predictions must be a CUDA tensor");
    TORCH_CHECK(targets.is_cuda(), "targets must be a CUDA tensor");
    TORCH_CHECK(predictions.is_contiguous() && targets.is_contiguous(), "inputs must be contiguous");
    TORCH_CHECK(predictions.scalar_type() == torch::kFloat32, "predictions must be float32");
    TORCH_CHECK(targets.scalar_type() == torch::kFloat32, "targets must be float32");
    TORCH_CHECK(predictions.numel() == targets.numel(), "predictions and targets must have the same number of elements");
    TORCH_CHECK(beta > 0.0, "beta must be positive");

    const long long n = predictions.numel();
    auto out = torch::empty({}, predictions.options());

    const int threads = 512;
    long long blocks = (n + threads - 1) / threads;
    if (blocks < 1) blocks = 1;  // n = 0 still gets one partial (0), so the mean is 0/0 = NaN like torch
    if (blocks > 1024) blocks = 1024;
    auto partials = torch::empty({blocks}, predictions.options());

    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    huber_partial_kernel<<<(unsigned int)blocks, threads, 0, stream>>>(
        predictions.data_ptr<float>(), targets.data_ptr<float>(), partials.data_ptr<float>(), n, (float)beta);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "huber_partial_kernel launch failed");
    huber_finish_kernel<<<1, 1024, 0, stream>>>(partials.data_ptr<float>(), (int)blocks, out.data_ptr<float>(), n);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "huber_finish_kernel launch failed");
    return out;
}
