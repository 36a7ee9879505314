#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// The problem's result is [B-1, D+1]: output row r holds the exclusive prefix sums of
// e[j] = (j < D ? x[r, j] : 0) for j = 0..D (position D is the whole row's sum). Rows of x past
// B-2 are never read.
//
// Reduce-then-scan over independent chunks, so a long row is spread over many blocks:
//   pass 1: block (row, chunk) sums its CHUNK positions -> totals[row][chunk];
//   pass 2: block (row, chunk) adds up the totals of the chunks before it (its offset), then
//           scans its chunk: ITEMS consecutive positions per thread scanned serially, the
//           thread totals scanned with warp shuffles, the warp totals through shared memory.
// Rows are blockIdx.x (up to 2^31-1), chunks blockIdx.y.
constexpr int THREADS = 256;
constexpr int ITEMS = 4;
constexpr int CHUNK = THREADS * ITEMS;
constexpr int WARPS = THREADS / 32;

__device__ __forceinline__ float chunk_value(const float* xr, int j, int D) {
    return (j < D) ? xr[j] : 0.0f;  // position D (and the padding past it) adds nothing
}

__global__ void chunk_totals_kernel(const float* __restrict__ x, float* __restrict__ totals,
                                    int D, int L, int nchunks) {
    __shared__ float warp_sum[WARPS];
    const int tid = threadIdx.x;
    const int lane = tid & 31;
    const int wid = tid >> 5;
    const int row = blockIdx.x;
    const int chunk = blockIdx.y;
    const float* xr = x + (size_t)row * D;

    float s = 0.0f;
    const int start = chunk * CHUNK;
    for (int j = start + tid; j < start + CHUNK && j < L; j += THREADS) s += chunk_value(xr, j, D);

    #pragma unroll
    for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
    if (lane == 0) warp_sum[wid] = s;
    __syncthreads();
    if (wid == 0) {
        float t = (lane < WARPS) ? warp_sum[lane] : 0.0f;
        #pragma unroll
        for (int off = 16; off > 0; off >>= 1) t += __shfl_down_sync(0xffffffffu, t, off);
        if (lane == 0) totals[(size_t)row * nchunks + chunk] = t;
    }
}

__global__ void chunk_scan_kernel(const float* __restrict__ x, const float* __restrict__ totals,
                                  float* __restrict__ y, int D, int L, int nchunks) {
    __shared__ float warp_incl[WARPS];
    __shared__ float chunk_offset;
    const int tid = threadIdx.x;
    const int lane = tid & 31;
    const int wid = tid >> 5;
    const int row = blockIdx.x;
    const int chunk = blockIdx.y;
    const float* xr = x + (size_t)row * D;
    float* yr = y + (size_t)row * L;

    // Offset of this chunk: the sum of the totals of chunks 0..chunk-1 (warp 0 adds them).
    if (wid == 0) {
        const float* tr = totals + (size_t)row * nchunks;
        float o = 0.0f;
        for (int c = lane; c < chunk; c += 32) o += tr[c];
        #pragma unroll
        for (int off = 16; off > 0; off >>= 1) o += __shfl_xor_sync(0xffffffffu, o, off);
        if (lane == 0) chunk_offset = o;
    }

    // ITEMS consecutive positions per thread, exclusive scan in registers.
    const int j0 = chunk * CHUNK + tid * ITEMS;
    float excl[ITEMS];
    float run = 0.0f;
    #pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        excl[k] = run;
        const int j = j0 + k;
        if (j < L) run += chunk_value(xr, j, D);
    }

    // Inclusive scan of the thread totals within the warp, then across warps.
    float incl = run;
    #pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
        const float up = __shfl_up_sync(0xffffffffu, incl, off);
        if (lane >= off) incl += up;
    }
    if (lane == 31) warp_incl[wid] = incl;
    __syncthreads();  // also publishes chunk_offset
    if (wid == 0) {
        float w = (lane < WARPS) ? warp_incl[lane] : 0.0f;
        #pragma unroll
        for (int off = 1; off < 32; off <<= 1) {
            const float up = __shfl_up_sync(0xffffffffu, w, off);
            if (lane >= off) w += up;
        }
        if (lane < WARPS) warp_incl[lane] = w;
    }
    __syncthreads();

    // Exclusive prefix of this thread inside its warp: the left neighbour's inclusive value
    // (taken before any branch, so all 32 lanes join the shuffle).
    float before_thread = __shfl_up_sync(0xffffffffu, incl, 1);
    if (lane == 0) before_thread = 0.0f;
    const float before_warp = (wid > 0) ? warp_incl[wid - 1] : 0.0f;
    const float base = chunk_offset + before_warp + before_thread;
    #pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const int j = j0 + k;
        if (j < L) yr[j] = base + excl[k];
    }
}

// ---- host ----
torch::Tensor cumsum_exclusive_two_pass(torch::Tensor x, int64_t dim) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    TORCH_CHECK(x.dim() == 2 && dim == 1, "expects [B, D] scanned along dim 1");

    const int64_t B = x.size(0);
    const int64_t D = x.size(1);
    TORCH_CHECK(B >= 1, "x needs at least one row");
    auto y = torch::empty({B - 1, D + 1}, x.options());
    const int64_t rows = B - 1;
    if (rows == 0) return y;

    const int L = (int)(D + 1);
    const int nchunks = (L + CHUNK - 1) / CHUNK;
    TORCH_CHECK(nchunks <= 65535, "row too long for the chunk grid");
    auto totals = torch::empty({rows, (int64_t)nchunks}, x.options());

    const dim3 grid((unsigned int)rows, (unsigned int)nchunks);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    chunk_totals_kernel<<<grid, THREADS, 0, stream>>>(x.data_ptr<float>(), totals.data_ptr<float>(),
                                                      (int)D, L, nchunks);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "chunk_totals_kernel launch failed");
    chunk_scan_kernel<<<grid, THREADS, 0, stream>>>(x.data_ptr<float>(), totals.data_ptr<float>(),
                                                    y.data_ptr<float>(), (int)D, L, nchunks);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "chunk_scan_kernel launch failed");
    return y;
}
