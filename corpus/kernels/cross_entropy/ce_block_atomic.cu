#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

#define CE_THREADS 128

// One block per sample: log-sum-exp of the logits (max-subtracted) through shared-memory trees,
// then thread 0 adds (lse - logit[target]) / B into the scalar loss with a float atomicAdd.
__global__ void cross_entropy_row_kernel(const float* __restrict__ logits,
                                         const long long* __restrict__ targets,
                                         float* __restrict__ loss,
                                         int C, float inv_batch) {
    __shared__ float red[CE_THREADS];
    const int tid = threadIdx.x;
    const int row = blockIdx.x;
    const float* lr = logits + (size_t)row * C;

    float m = -3.402823466e+38f;
    for (int c = tid; c < C; c += CE_THREADS) m = fmaxf(m, lr[c]);
    red[tid] = m;
    __syncthreads();
    for (int s = CE_THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) red[tid] = fmaxf(red[tid], red[tid + s]);
        __syncthreads();
    }
    const float row_max = red[0];
    __syncthreads();

    float se = 0.0f;
    for (int c = tid; c < C; c += CE_THREADS) se += expf(lr[c] - row_max);
    red[tid] = se;
    __syncthreads();
    for (int s = CE_THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) red[tid] += red[tid + s];
        __syncthreads();
    }

    if (tid == 0) {
        const long long t = targets[row];
        const float lse = logf(red[0]) + row_max;
        atomicAdd(loss, (lse - lr[t]) * inv_batch);
    }
}

// ---- host ----
torch::Tensor cross_entropy_forward(torch::Tensor predictions, torch::Tensor targets) {
    TORCH_CHECK(predictions.is_cuda() && targets.is_cuda(), "inputs must be CUDA tensors");
    TORCH_CHECK(predictions.is_contiguous() && targets.is_contiguous(), "inputs must be contiguous");
    TORCH_CHECK(predictions.dim() == 2, "predictions must be [B, C]");
    TORCH_CHECK(targets.dim() == 1 && targets.size(0) == predictions.size(0), "targets must be [B]");
    TORCH_CHECK(targets.scalar_type() == torch::kInt64, "targets must be int64");
    TORCH_CHECK(predictions.scalar_type() == torch::kFloat32, "predictions must be float32");

    const int B = predictions.size(0);
    const int C = predictions.size(1);
    auto loss = torch::zeros({}, predictions.options());
    if (B == 0) return loss;

    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    cross_entropy_row_kernel<<<B, CE_THREADS, 0, stream>>>(
        predictions.data_ptr<float>(),
        reinterpret_cast<const long long*>(targets.data_ptr<int64_t>()),
        loss.data_ptr<float>(), C, 1.0f / (float)B);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "cross_entropy_row_kernel launch failed");
    return loss;
}
