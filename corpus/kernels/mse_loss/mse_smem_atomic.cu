#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// Each block: grid-stride accumulation of squared differences, a shared-memory tree,
// then one float atomicAdd of (block sum / n) into the scalar result.
template <int BLOCK>
__global__ void mse_block_atomic_kernel(const float* __restrict__ pred,
                                        const float* __restrict__ target,
                                        float* __restrict__ result,
                                        long long n, float inv_n) {
    __shared__ float sdata[BLOCK];
    const int tid = threadIdx.x;

    float acc = 0.0f;
    for (long long i = (long long)blockIdx.x * BLOCK + tid; i < n; i += (long long)BLOCK * gridDim.x) {
        const float d = pred[i] - target[i];
        acc += d * d;
    }
    sdata[tid] = acc;
    __syncthreads();

    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }

    if (tid == 0) {
        atomicAdd(result, sdata[0] * inv_n);
    }
}

// ---- host ----
torch::Tensor mse_forward(torch::Tensor predictions, torch::Tensor targets) {
    TORCH_CHECK(predictions.is_cuda() && targets.is_cuda(), "inputs must be CUDA tensors");
    TORCH_CHECK(predictions.is_contiguous() && targets.is_contiguous(), "inputs must be contiguous");
    TORCH_CHECK(predictions.numel() == targets.numel(), "size mismatch");
    TORCH_CHECK(predictions.scalar_type() == torch::kFloat32, "float32 only");

    const long long n = predictions.numel();
    auto result = torch::zeros({}, predictions.options());  // 0-dim, like torch.mean
    if (n == 0) return result;

    constexpr int kBlock = 256;
    long long blocks = (n + kBlock - 1) / kBlock;
    if (blocks > 1024) blocks = 1024;
    const float inv_n = (float)(1.0 / (double)n);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    mse_block_atomic_kernel<kBlock><<<(unsigned int)blocks, kBlock, 0, stream>>>(
        predictions.data_ptr<float>(), targets.data_ptr<float>(), result.data_ptr<float>(), n, inv_n);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "mse kernel launch failed");
    return result;
}
