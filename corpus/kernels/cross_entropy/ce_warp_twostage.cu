#include <torch/extension.h>
#include <cuda_runtime.h>
#include <c10/cuda/CUDAException.h>

__device__ __forceinline__ float warp_allreduce_max(float v) {
    #pragma unroll
    for (int mask = 16; mask > 0; mask >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, mask));
    return v;
}

__device__ __forceinline__ float warp_allreduce_sum(float v) {
    #pragma unroll
    for (int mask = 16; mask > 0; mask >>= 1) v += __shfl_xor_sync(0xffffffff, v, mask);
    return v;
}

// Stage 1: one warp per sample writes its loss, -log softmax(logits)[target].
__global__ void ce_row_loss_kernel(const float* __restrict__ logits, const long long* __restrict__ targets,
                                   float* __restrict__ row_loss, int B, int C) {
    const int warps_per_block = blockDim.x / 32;
    const int row = blockIdx.x * warps_per_block + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (row < B) {  // row is the same for the 32 lanes of a warp
        const float* lr = logits + (size_t)row * C;
        float m = -3.402823466e+38f;
        for (int c = lane; c < C; c += 32) m = fmaxf(m, lr[c]);
        m = warp_allreduce_max(m);
        float s = 0.0f;
        for (int c = lane; c < C; c += 32) s += expf(lr[c] - m);
        s = warp_allreduce_sum(s);
        if (lane == 0) {
            row_loss[row] = (m - lr[targets[row]]) + logf(s);
        }
    }
}

// Stage 2: a single block sums the per-sample losses (deterministic order) and takes the mean.
template <int THREADS>
__global__ void mean_reduce_kernel(const float* __restrict__ v, float* __restrict__ out, int n) {
    __shared__ float buf[THREADS];
    float acc = 0.0f;
    for (int i = threadIdx.x; i < n; i += THREADS) acc += v[i];
    buf[threadIdx.x] = acc;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[0] = buf[0] / (float)n;
}

// ---- host ----
torch::Tensor cross_entropy_cuda(torch::Tensor logits, torch::Tensor targets) {
    TORCH_CHECK(logits.is_cuda(), "logits must be a CUDA tensor");
    TORCH_CHECK(targets.is_cuda(), "targets must be a CUDA tensor");
    TORCH_CHECK(logits.dim() == 2, "logits must be 2-D");
    TORCH_CHECK(targets.dim() == 1, "targets must be 1-D");
    TORCH_CHECK(targets.scalar_type() == torch::kInt64, "targets must be int64 class indices");
    logits = logits.contiguous();
    targets = targets.contiguous();

    const int B = logits.size(0);
    const int C = logits.size(1);
    auto row_loss = torch::empty({B}, logits.options());
    auto out = torch::empty({}, logits.options());

    const int threads = 256;  // 8 warps -> 8 samples per block
    const int rows_per_block = threads / 32;
    const int blocks = (B + rows_per_block - 1) / rows_per_block;
    if (blocks > 0) {
        ce_row_loss_kernel<<<blocks, threads>>>(logits.data_ptr<float>(),
                                                reinterpret_cast<const long long*>(targets.data_ptr<int64_t>()),
                                                row_loss.data_ptr<float>(), B, C);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
    }
    mean_reduce_kernel<512><<<1, 512>>>(row_loss.data_ptr<float>(), out.data_ptr<float>(), B);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}
