#include <torch/extension.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cstdint>

#define FULL_WARP 0xffffffffu
#define LOWEST_FLOAT (-3.402823466e+38f)

__device__ __forceinline__ float warp_reduce_max(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) {
        v = fmaxf(v, __shfl_xor_sync(FULL_WARP, v, offset));
    }
    return v;
}

__device__ __forceinline__ float warp_reduce_sum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) {
        v += __shfl_xor_sync(FULL_WARP, v, offset);
    }
    return v;
}

// Block-wide reductions for blockDim.x a multiple of 32: each warp folds its lanes, lane 0 parks
// the warp's value in `partials`, then warp 0 folds the partials and publishes the result in
// `*result`. Two barriers: the second one makes *result visible; the next call's first write to
// `partials` comes after warp 0 has read them, and its write to *result after the next barrier.
__device__ float block_reduce_max(float v, float* partials, float* result) {
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int nwarps = blockDim.x >> 5;
    v = warp_reduce_max(v);
    if (lane == 0) partials[warp] = v;
    __syncthreads();
    if (warp == 0) {
        const float w = warp_reduce_max((lane < nwarps) ? partials[lane] : LOWEST_FLOAT);
        if (lane == 0) *result = w;
    }
    __syncthreads();
    return *result;
}

__device__ float block_reduce_sum(float v, float* partials, float* result) {
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int nwarps = blockDim.x >> 5;
    v = warp_reduce_sum(v);
    if (lane == 0) partials[warp] = v;
    __syncthreads();
    if (warp == 0) {
        const float w = warp_reduce_sum((lane < nwarps) ? partials[lane] : 0.0f);
        if (lane == 0) *result = w;
    }
    __syncthreads();
    return *result;
}

// One block per row of a [rows, D] float16 tensor. The bulk of the row moves as __half2 pairs;
// a pair load needs a 4-byte aligned address, and with odd D every other row starts on an odd
// half, so each row has a scalar head (the first element when the row is misaligned), the
// pairs, and a scalar tail (the last element when the remaining count is odd). With vec == 0
// (x and y differently aligned) the whole row is the scalar head.
// The max and the sum of exponentials are accumulated in float32; each output is rounded once.
__global__ void softmax_half2_block_kernel(const __half* __restrict__ x, __half* __restrict__ y,
                                           int D, int vec) {
    __shared__ float partials[32];
    __shared__ float result;

    const __half* xr = x + (size_t)blockIdx.x * D;
    __half* yr = y + (size_t)blockIdx.x * D;

    int head = D;
    if (vec) {
        head = (reinterpret_cast<uintptr_t>(xr) & 3u) ? 1 : 0;  // D >= 1, so head <= D
    }
    const int pairs = (D - head) / 2;
    const int tail = head + 2 * pairs;  // first element of the scalar tail
    const __half2* x2 = reinterpret_cast<const __half2*>(xr + head);
    __half2* y2 = reinterpret_cast<__half2*>(yr + head);

    // Pass 1: row max (of half values, so exact in float32 whatever the order).
    float m = LOWEST_FLOAT;
    for (int j = threadIdx.x; j < head; j += blockDim.x) {
        const float v = __half2float(xr[j]);
        if (v > m) m = v;
    }
    for (int p = threadIdx.x; p < pairs; p += blockDim.x) {
        const float2 f = __half22float2(x2[p]);
        const float pm = fmaxf(f.x, f.y);
        if (pm > m) m = pm;
    }
    for (int j = tail + threadIdx.x; j < D; j += blockDim.x) {
        const float v = __half2float(xr[j]);
        if (v > m) m = v;
    }
    const float row_max = block_reduce_max(m, partials, &result);

    // Pass 2: sum of exp(x - max), float32.
    float s = 0.0f;
    for (int j = threadIdx.x; j < head; j += blockDim.x) s += expf(__half2float(xr[j]) - row_max);
    for (int p = threadIdx.x; p < pairs; p += blockDim.x) {
        const float2 f = __half22float2(x2[p]);
        s += expf(f.x - row_max) + expf(f.y - row_max);
    }
    for (int j = tail + threadIdx.x; j < D; j += blockDim.x) s += expf(__half2float(xr[j]) - row_max);
    const float row_sum = block_reduce_sum(s, partials, &result);
    const float inv_sum = 1.0f / row_sum;

    // Pass 3: normalise and round to half.
    for (int j = threadIdx.x; j < head; j += blockDim.x) {
        yr[j] = __float2half_rn(expf(__half2float(xr[j]) - row_max) * inv_sum);
    }
    for (int p = threadIdx.x; p < pairs; p += blockDim.x) {
        const float2 f = __half22float2(x2[p]);
        y2[p] = __floats2half2_rn(expf(f.x - row_max) * inv_sum, expf(f.y - row_max) * inv_sum);
    }
    for (int j = tail + threadIdx.x; j < D; j += blockDim.x) {
        yr[j] = __float2half_rn(expf(__half2float(xr[j]) - row_max) * inv_sum);
    }
}

// ---- host ----
torch::Tensor softmax_fp16_half2(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.scalar_type() == torch::kHalf, "x must be float16");
    TORCH_CHECK(x.dim() == 2, "x must be 2-D [B, D]");
    torch::Tensor xc = x.contiguous();
    const int64_t rows = xc.size(0);
    const int64_t D = xc.size(1);
    TORCH_CHECK(D <= 2147483647, "rows longer than 2^31 - 1 elements are not supported");
    torch::Tensor y = torch::empty_like(xc);
    if (rows == 0 || D == 0) return y;

    const __half* xp = reinterpret_cast<const __half*>(xc.data_ptr<at::Half>());
    __half* yp = reinterpret_cast<__half*>(y.data_ptr<at::Half>());
    // Row r of x and of y sit at the same offset, so one head length serves both when the two
    // base pointers agree modulo 4 bytes; otherwise stay scalar.
    const int vec = ((reinterpret_cast<uintptr_t>(xp) & 3u) == (reinterpret_cast<uintptr_t>(yp) & 3u)) ? 1 : 0;

    const int threads = 256;  // 8 warps; must stay a multiple of 32
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    softmax_half2_block_kernel<<<(unsigned int)rows, threads, 0, stream>>>(xp, yp, (int)D, vec);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
