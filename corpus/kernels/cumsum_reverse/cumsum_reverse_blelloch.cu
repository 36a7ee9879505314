#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// Suffix sums, one block per row. The row is read reversed (position k of the tile holds
// x[D-1-(t0+k)]), so a plain prefix scan of the reversed tile is the suffix scan of the row.
// Each tile of 2*THREADS elements is scanned work-efficiently (Blelloch: up-sweep builds the
// partial-sum tree, down-sweep turns it into an exclusive scan); adding each element back makes
// it inclusive, and a carry links the tiles from the right end leftwards.
template <int THREADS>
__global__ void cumsum_reverse_blelloch_kernel(const float* __restrict__ x, float* __restrict__ y, int D) {
    constexpr int N = 2 * THREADS;
    __shared__ float s[N];

    const int tid = threadIdx.x;
    const float* xr = x + (size_t)blockIdx.x * D;
    float* yr = y + (size_t)blockIdx.x * D;

    float carry = 0.0f;
    for (int t0 = 0; t0 < D; t0 += N) {
        // Reversed offsets k = tid and k = tid + THREADS; past the row's start pads with 0.
        const int k0 = tid;
        const int k1 = tid + THREADS;
        const int p0 = D - 1 - (t0 + k0);
        const int p1 = D - 1 - (t0 + k1);
        const float a0 = (p0 >= 0) ? xr[p0] : 0.0f;
        const float a1 = (p1 >= 0) ? xr[p1] : 0.0f;
        s[k0] = a0;
        s[k1] = a1;

        // Up-sweep: after the level with stride 'offset', s[offset*(2i+2)-1] holds a subtree sum.
        int offset = 1;
        for (int active = THREADS; active > 0; active >>= 1) {
            __syncthreads();
            if (tid < active) {
                const int ai = offset * (2 * tid + 1) - 1;
                const int bi = offset * (2 * tid + 2) - 1;
                s[bi] += s[ai];
            }
            offset <<= 1;
        }
        __syncthreads();
        const float tile_total = s[N - 1];
        __syncthreads();  // everyone has the total before the root is cleared
        if (tid == 0) s[N - 1] = 0.0f;

        // Down-sweep: each node passes its value left and the left sum plus its value right.
        for (int active = 1; active < N; active <<= 1) {
            offset >>= 1;
            __syncthreads();
            if (tid < active) {
                const int ai = offset * (2 * tid + 1) - 1;
                const int bi = offset * (2 * tid + 2) - 1;
                const float left = s[ai];
                s[ai] = s[bi];
                s[bi] += left;
            }
        }
        __syncthreads();

        if (p0 >= 0) yr[p0] = carry + (s[k0] + a0);
        if (p1 >= 0) yr[p1] = carry + (s[k1] + a1);
        carry += tile_total;
        __syncthreads();  // all reads of s done before the next tile overwrites it
    }
}

// ---- host ----
torch::Tensor cumsum_reverse_scan(torch::Tensor x, int64_t dim) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    TORCH_CHECK(x.dim() == 2 && dim == 1, "expects [B, D] scanned along dim 1");

    const int64_t rows = x.size(0);
    const int64_t D = x.size(1);
    torch::Tensor y = torch::empty_like(x);
    if (rows == 0 || D == 0) return y;

    constexpr int kThreads = 128;  // 256-element tiles
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    cumsum_reverse_blelloch_kernel<kThreads><<<(unsigned int)rows, kThreads, 0, stream>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), (int)D);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "cumsum_reverse_blelloch_kernel launch failed");
    return y;
}
