#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// One block per row (rows strided over the grid when B exceeds it). Threads walk the row with a
// block-wide stride (coalesced scalar loads), then three shared-memory trees reduce p.t, |p|^2
// and |t|^2 together. Thread 0 turns them into the row's 1 - cos and adds it, pre-scaled by 1/B,
// to the zero-initialised output: the mean is built by atomics, in no fixed order.
template <int BLOCK>
__global__ void cos_block_atomic_kernel(const float* __restrict__ pred, const float* __restrict__ targ,
                                        float* __restrict__ out, int B, int D, float eps, float inv_b) {
    __shared__ float s_dot[BLOCK];
    __shared__ float s_pp[BLOCK];
    __shared__ float s_tt[BLOCK];
    const int tid = threadIdx.x;

    for (int row = blockIdx.x; row < B; row += gridDim.x) {
        const float* pr = pred + (size_t)row * D;
        const float* tr = targ + (size_t)row * D;
        float dot = 0.0f, pp = 0.0f, tt = 0.0f;
        for (int j = tid; j < D; j += BLOCK) {
            const float a = pr[j];
            const float b = tr[j];
            dot += a * b;
            pp += a * a;
            tt += b * b;
        }
        s_dot[tid] = dot;
        s_pp[tid] = pp;
        s_tt[tid] = tt;
        __syncthreads();
        for (int s = BLOCK / 2; s > 0; s >>= 1) {
            if (tid < s) {
                s_dot[tid] += s_dot[tid + s];
                s_pp[tid] += s_pp[tid + s];
                s_tt[tid] += s_tt[tid + s];
            }
            __syncthreads();
        }
        // Slot 0 is written only by thread 0, so the next row's stores cannot race this read.
        if (tid == 0) {
            const float denom = fmaxf(sqrtf(s_pp[0]), eps) * fmaxf(sqrtf(s_tt[0]), eps);
            atomicAdd(out, (1.0f - s_dot[0] / denom) * inv_b);
        }
    }
}

// ---- host ----
torch::Tensor cosine_loss_block_atomic(torch::Tensor predictions, torch::Tensor targets, double eps) {
    TORCH_CHECK(predictions.is_cuda() && targets.is_cuda(), "inputs must be CUDA tensors");
    TORCH_CHECK(predictions.is_contiguous() && targets.is_contiguous(), "inputs must be contiguous");
    TORCH_CHECK(predictions.scalar_type() == torch::kFloat32 && targets.scalar_type() == torch::kFloat32,
                "inputs must be float32");
    TORCH_CHECK(predictions.dim() == 2, "predictions must be [B, D]");
    TORCH_CHECK(predictions.sizes() == targets.sizes(), "predictions and targets must have the same shape");

    const int B = (int)predictions.size(0);
    const int D = (int)predictions.size(1);
    auto out = torch::zeros({}, predictions.options());
    if (B == 0) return out;

    constexpr int kBlock = 256;
    const int blocks = B < 65535 ? B : 65535;
    const float inv_b = 1.0f / (float)B;
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    cos_block_atomic_kernel<kBlock><<<blocks, kBlock, 0, stream>>>(
        predictions.data_ptr<float>(), targets.data_ptr<float>(), out.data_ptr<float>(), B, D, (float)eps, inv_b);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "cos_block_atomic_kernel launch failed: ", cudaGetErrorString(err));
    return out;
}
