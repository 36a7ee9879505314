#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// One hinge term. The label is a bool (true = +1, false = -1), so y * p is exact and the term
// is max(0, 1 - p) or max(0, 1 + p).
__device__ __forceinline__ float hinge_term(float p, bool label) {
    const float y = label ? 1.0f : -1.0f;
    return fmaxf(0.0f, 1.0f - y * p);
}

// Stage 1: grid-stride over the flattened [B, D] scores; element i lies in row i / D and takes
// that row's label. Each block sums its share with a shared-memory tree (BLOCK a power of two)
// and thread 0 adds the block's total to the zero-initialised accumulator: one atomic per block.
template <int BLOCK>
__global__ void hinge_sum_atomic_kernel(const float* __restrict__ pred, const bool* __restrict__ labels,
                                        float* __restrict__ acc, long long n, long long D) {
    __shared__ float sdata[BLOCK];
    const int tid = threadIdx.x;
    const long long stride = (long long)BLOCK * gridDim.x;

    float local = 0.0f;
    for (long long i = (long long)blockIdx.x * BLOCK + tid; i < n; i += stride) {
        local += hinge_term(pred[i], labels[i / D]);
    }

    sdata[tid] = local;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(acc, sdata[0]);
}

// Stage 2: sum -> mean. Launched on the same stream, so it starts after every block's atomic.
__global__ void hinge_mean_kernel(float* __restrict__ acc, long long n) {
    if (blockIdx.x == 0 && threadIdx.x == 0) acc[0] = acc[0] / (float)n;
}

// ---- host ----
torch::Tensor hinge_loss_forward(torch::Tensor predictions, torch::Tensor targets) {
    TORCH_CHECK(predictions.is_cuda() && targets.is_cuda(), "inputs must be CUDA tensors");
    TORCH_CHECK(predictions.is_contiguous() && targets.is_contiguous(), "inputs must be contiguous");
    TORCH_CHECK(predictions.scalar_type() == torch::kFloat32, "predictions must be float32");
    TORCH_CHECK(targets.scalar_type() == torch::kBool, "targets must be a bool label mask");
    TORCH_CHECK(predictions.dim() == 2, "predictions must be [B, D]");
    TORCH_CHECK(targets.numel() == predictions.size(0), "targets must hold one label per row");

    const long long B = predictions.size(0);
    const long long D = predictions.size(1);
    const long long n = B * D;
    auto out = torch::zeros({}, predictions.options());  // 0-dim accumulator, then the mean
    if (n == 0) return out;

    constexpr int kBlock = 256;
    constexpr int kItemsPerThread = 4;  // each thread adds at least a few terms before the tree
    long long blocks = (n + (long long)kBlock * kItemsPerThread - 1) / ((long long)kBlock * kItemsPerThread);
    if (blocks > 1024) blocks = 1024;  // grid-stride covers the rest

    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    hinge_sum_atomic_kernel<kBlock><<<(unsigned int)blocks, kBlock, 0, stream>>>(
        predictions.data_ptr<float>(), targets.data_ptr<bool>(), out.data_ptr<float>(), n, D);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "hinge_sum_atomic_kernel launch failed: ", cudaGetErrorString(err));
    hinge_mean_kernel<<<1, 32, 0, stream>>>(out.data_ptr<float>(), n);
    err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "hinge_mean_kernel launch failed: ", cudaGetErrorString(err));
    return out;
}
