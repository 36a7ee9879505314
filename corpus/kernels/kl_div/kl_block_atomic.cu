#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// batchmean sums every element's t * (log t - log p), whatever its row, then divides by B:
// the rows need not be kept apart, so the kernel reduces the flat B*D range.
template <int BLOCK>
__global__ void kl_block_atomic_kernel(const float* __restrict__ pred, const float* __restrict__ targ,
                                       float* __restrict__ out, long long n, float inv_batch) {
    __shared__ float sdata[BLOCK];
    const int tid = threadIdx.x;

    float acc = 0.0f;
    for (long long i = (long long)blockIdx.x * BLOCK + tid; i < n; i += (long long)BLOCK * gridDim.x) {
        const float t = targ[i];
        // kl_div's pointwise term with input = log(p), as F.kl_div(torch.log(p), t) forms it.
        // t > 0 on probability rows, so log(t) is finite (torch's xlogy(0, .) = 0 case never arises).
        acc += t * (logf(t) - logf(pred[i]));
    }
    sdata[tid] = acc;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(out, sdata[0] * inv_batch);
}

// ---- host ----
torch::Tensor kl_div_forward(torch::Tensor predictions, torch::Tensor targets) {
    TORCH_CHECK(predictions.is_cuda() && targets.is_cuda(), "inputs must be CUDA tensors");
    TORCH_CHECK(predictions.is_contiguous() && targets.is_contiguous(), "inputs must be contiguous");
    TORCH_CHECK(predictions.scalar_type() == torch::kFloat32 && targets.scalar_type() == torch::kFloat32,
                "inputs must be float32");
    TORCH_CHECK(predictions.dim() >= 1, "inputs must have a batch dimension");
    TORCH_CHECK(predictions.sizes() == targets.sizes(), "predictions and targets must have the same shape");

    const long long batch = predictions.size(0);
    const long long n = predictions.numel();
    auto out = torch::zeros({}, predictions.options());  // 0-dim, accumulated by atomics
    if (n == 0) return out;

    constexpr int kBlock = 256;
    long long blocks = (n + kBlock - 1) / kBlock;
    if (blocks > 1024) blocks = 1024;
    const float inv_batch = (float)(1.0 / (double)batch);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    kl_block_atomic_kernel<kBlock><<<(unsigned int)blocks, kBlock, 0, stream>>>(
        predictions.data_ptr<float>(), targets.data_ptr<float>(), out.data_ptr<float>(), n, inv_batch);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "kl_block_atomic_kernel launch failed");
    return out;
}
