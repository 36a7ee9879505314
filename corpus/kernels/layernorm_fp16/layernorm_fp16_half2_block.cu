#include <torch/extension.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cstdint>

#define LN_THREADS 256  // a power of two, at least 64 (block_tree_sum relies on both)

// Block-wide float sum: a shared-memory tree halves the LN_THREADS partials down to 32, warp 0
// finishes with shuffles and writes the total to buf[0]. Every thread of the block must call
// it and gets the total; the trailing barrier lets the caller reuse buf immediately.
__device__ float block_tree_sum(float v, float* buf) {
    const int t = threadIdx.x;
    buf[t] = v;
    __syncthreads();
    for (int stride = LN_THREADS / 2; stride >= 32; stride >>= 1) {
        if (t < stride) buf[t] += buf[t + stride];
        __syncthreads();
    }
    if (t < 32) {
        float w = buf[t];
        for (int offset = 16; offset > 0; offset >>= 1) w += __shfl_down_sync(0xffffffffu, w, offset);
        if (t == 0) buf[0] = w;  // the other lanes read buf[t] before the shuffles they joined
    }
    __syncthreads();
    const float total = buf[0];
    __syncthreads();
    return total;
}

// One block per row of [rows, D] float16, two passes for the statistics (mean, then the mean
// of squared deviations, both in float32) and a third for the affine output. x and y move as
// __half2 pairs: a row of odd D may start on an odd half, so each row has a scalar head (its
// first element when misaligned), the pairs, and a scalar tail. gamma and beta are read as
// scalars: their alignment relative to the pairs changes from row to row when D is odd.
// vec == 0 (x and y bases differently aligned) makes the whole row the scalar head.
__global__ void layernorm_fp16_half2_kernel(const __half* __restrict__ x,
                                            const __half* __restrict__ gamma,
                                            const __half* __restrict__ beta,
                                            __half* __restrict__ y,
                                            int D, float eps, int vec) {
    __shared__ float red[LN_THREADS];
    const __half* xr = x + (size_t)blockIdx.x * D;
    __half* yr = y + (size_t)blockIdx.x * D;

    const int head = vec ? ((reinterpret_cast<uintptr_t>(xr) & 3u) ? 1 : 0) : D;
    const int pairs = (D - head) >> 1;
    const int tail = head + 2 * pairs;
    const __half2* x2 = reinterpret_cast<const __half2*>(xr + head);
    __half2* y2 = reinterpret_cast<__half2*>(yr + head);

    float acc = 0.0f;
    for (int j = threadIdx.x; j < head; j += LN_THREADS) acc += __half2float(xr[j]);
    for (int p = threadIdx.x; p < pairs; p += LN_THREADS) {
        const float2 f = __half22float2(x2[p]);
        acc += f.x + f.y;
    }
    for (int j = tail + threadIdx.x; j < D; j += LN_THREADS) acc += __half2float(xr[j]);
    const float mean = block_tree_sum(acc, red) / (float)D;

    float sq = 0.0f;
    for (int j = threadIdx.x; j < head; j += LN_THREADS) {
        const float d = __half2float(xr[j]) - mean;
        sq += d * d;
    }
    for (int p = threadIdx.x; p < pairs; p += LN_THREADS) {
        const float2 f = __half22float2(x2[p]);
        const float d0 = f.x - mean;
        const float d1 = f.y - mean;
        sq += d0 * d0 + d1 * d1;
    }
    for (int j = tail + threadIdx.x; j < D; j += LN_THREADS) {
        const float d = __half2float(xr[j]) - mean;
        sq += d * d;
    }
    const float var = block_tree_sum(sq, red) / (float)D;  // biased, like nn.LayerNorm
    const float rstd = rsqrtf(var + eps);

    for (int j = threadIdx.x; j < head; j += LN_THREADS) {
        const float n = (__half2float(xr[j]) - mean) * rstd;
        yr[j] = __float2half_rn(n * __half2float(gamma[j]) + __half2float(beta[j]));
    }
    for (int p = threadIdx.x; p < pairs; p += LN_THREADS) {
        const int j = head + 2 * p;  // column of the pair's first element
        const float2 f = __half22float2(x2[p]);
        const float n0 = (f.x - mean) * rstd;
        const float n1 = (f.y - mean) * rstd;
        y2[p] = __floats2half2_rn(n0 * __half2float(gamma[j]) + __half2float(beta[j]),
                                  n1 * __half2float(gamma[j + 1]) + __half2float(beta[j + 1]));
    }
    for (int j = tail + threadIdx.x; j < D; j += LN_THREADS) {
        const float n = (__half2float(xr[j]) - mean) * rstd;
        yr[j] = __float2half_rn(n * __half2float(gamma[j]) + __half2float(beta[j]));
    }
}

// ---- host ----
torch::Tensor layernorm_fp16_half2(torch::Tensor x, torch::Tensor weight, torch::Tensor bias, double eps) {
    TORCH_CHECK(x.is_cuda() && weight.is_cuda() && bias.is_cuda(), "x, weight and bias must be CUDA tensors");
    TORCH_CHECK(x.scalar_type() == torch::kHalf, "x must be float16");
    TORCH_CHECK(weight.scalar_type() == torch::kHalf && bias.scalar_type() == torch::kHalf,
                "weight and bias must be float16");
    TORCH_CHECK(x.dim() == 2, "x must be [B, D]");
    torch::Tensor xc = x.contiguous();
    torch::Tensor wc = weight.contiguous();
    torch::Tensor bc = bias.contiguous();
    const int64_t rows = xc.size(0);
    const int64_t D = xc.size(1);
    TORCH_CHECK(wc.numel() == D && bc.numel() == D, "weight and bias must have D elements");
    TORCH_CHECK(D <= 2147483647, "D must fit in int");

    torch::Tensor y = torch::empty_like(xc);
    if (rows == 0 || D == 0) return y;

    const __half* xp = reinterpret_cast<const __half*>(xc.data_ptr<at::Half>());
    __half* yp = reinterpret_cast<__half*>(y.data_ptr<at::Half>());
    const int vec = ((reinterpret_cast<uintptr_t>(xp) ^ reinterpret_cast<uintptr_t>(yp)) & 3u) == 0 ? 1 : 0;

    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    layernorm_fp16_half2_kernel<<<(unsigned int)rows, LN_THREADS, 0, stream>>>(
        xp, reinterpret_cast<const __half*>(wc.data_ptr<at::Half>()),
        reinterpret_cast<const __half*>(bc.data_ptr<at::Half>()), yp, (int)D, (float)eps, vec);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
