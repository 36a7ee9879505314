#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// cumsum(x * mask) along each row, one block per row, tiles of N = 2 * THREADS elements.
// Each tile is scanned work-efficiently (Blelloch): the up-sweep builds partial sums in place,
// the root is cleared, the down-sweep turns the tree into an exclusive scan; adding the element
// itself makes it inclusive, and a carry links the tiles.
// Tree indices are padded by one slot per 32 (PAD) so the strided accesses of the deep levels
// fall into different shared-memory banks.
#define LOG_BANKS 5
#define PAD(i) ((i) >> LOG_BANKS)

template <int THREADS>
__global__ void masked_cumsum_blelloch_kernel(const float* __restrict__ x,
                                              const bool* __restrict__ mask,
                                              float* __restrict__ y, int D) {
    constexpr int N = 2 * THREADS;
    __shared__ float tree[N + (N >> LOG_BANKS)];

    const int tid = threadIdx.x;
    const size_t row_off = (size_t)blockIdx.x * D;
    const float* xr = x + row_off;
    const bool* mr = mask + row_off;
    float* yr = y + row_off;

    float carry = 0.0f;
    for (int t0 = 0; t0 < D; t0 += N) {
        // Element tid and tid + THREADS of the tile (coalesced); the mask multiplies in as 0/1.
        const int a = tid;
        const int b = tid + THREADS;
        const int ga = t0 + a;
        const int gb = t0 + b;
        const float va = (ga < D) ? xr[ga] * (float)mr[ga] : 0.0f;
        const float vb = (gb < D) ? xr[gb] * (float)mr[gb] : 0.0f;
        tree[a + PAD(a)] = va;
        tree[b + PAD(b)] = vb;

        int stride = 1;
        for (int d = N >> 1; d > 0; d >>= 1) {  // up-sweep
            __syncthreads();
            if (tid < d) {
                int ai = stride * (2 * tid + 1) - 1;
                int bi = stride * (2 * tid + 2) - 1;
                ai += PAD(ai);
                bi += PAD(bi);
                tree[bi] += tree[ai];
            }
            stride <<= 1;
        }

        __syncthreads();
        const int root = (N - 1) + PAD(N - 1);
        const float tile_total = tree[root];
        __syncthreads();  // every thread has the total before the root is cleared
        if (tid == 0) tree[root] = 0.0f;

        for (int d = 1; d < N; d <<= 1) {  // down-sweep
            stride >>= 1;
            __syncthreads();
            if (tid < d) {
                int ai = stride * (2 * tid + 1) - 1;
                int bi = stride * (2 * tid + 2) - 1;
                ai += PAD(ai);
                bi += PAD(bi);
                const float left = tree[ai];
                tree[ai] = tree[bi];
                tree[bi] += left;
            }
        }
        __syncthreads();

        if (ga < D) yr[ga] = carry + (tree[a + PAD(a)] + va);
        if (gb < D) yr[gb] = carry + (tree[b + PAD(b)] + vb);
        carry += tile_total;
        __syncthreads();  // the tree is read before the next tile overwrites it
    }
}

// ---- host ----
torch::Tensor masked_cumsum_blelloch(torch::Tensor x, torch::Tensor mask, int64_t dim) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(mask.is_cuda(), "mask must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous() && mask.is_contiguous(), "inputs must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    TORCH_CHECK(mask.scalar_type() == torch::kBool, "mask must be bool");
    TORCH_CHECK(x.dim() == 2 && (dim == 1 || dim == -1), "expects [B, D] scanned along dim 1");
    TORCH_CHECK(mask.size(0) == x.size(0) && mask.size(1) == x.size(1), "mask must match x");

    const int64_t rows = x.size(0);
    const int64_t D = x.size(1);
    torch::Tensor y = torch::empty_like(x);
    if (rows == 0 || D == 0) return y;

    constexpr int kThreads = 128;  // 256-element tiles
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    masked_cumsum_blelloch_kernel<kThreads><<<(unsigned int)rows, kThreads, 0, stream>>>(
        x.data_ptr<float>(), mask.data_ptr<bool>(), y.data_ptr<float>(), (int)D);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "masked_cumsum_blelloch_kernel launch failed");
    return y;
}
