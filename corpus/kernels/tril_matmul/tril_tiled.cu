#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// Tiled C = tril(A * B) for lower-triangular M x M matrices. A block of 32 x 8 threads computes
// one 32 x 32 tile of C, each thread four rows (ty, ty + 8, ty + 16, ty + 24) of one column.
// Triangularity prunes the work twice:
//  - a tile strictly above the diagonal (tile column > tile row) is all zeros: it is written
//    and the block leaves before any barrier;
//  - for tile (by, bx) only k in [bx*T, by*T + T) can be non-zero, i.e. K-tiles bx..by.
// Inside those tiles the zero halves of A and B are multiplied like any other values (they are
// exact zeros), and the final store masks the upper triangle of diagonal tiles.
#define TRI_T 32
#define TRI_ROWS 8
#define TRI_PER_THREAD (TRI_T / TRI_ROWS)

__global__ void tril_tiled_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                  float* __restrict__ C, int M) {
    __shared__ float As[TRI_T][TRI_T];
    __shared__ float Bs[TRI_T][TRI_T];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int bx = blockIdx.x;
    const int by = blockIdx.y;
    const int row0 = by * TRI_T;
    const int col = bx * TRI_T + tx;

    if (bx > by) {
        // Uniform for the whole block, so returning here cannot strand a barrier.
        for (int i = 0; i < TRI_PER_THREAD; ++i) {
            const int r = row0 + ty + TRI_ROWS * i;
            if (r < M && col < M) C[(size_t)r * M + col] = 0.0f;
        }
        return;
    }

    float acc[TRI_PER_THREAD];
    #pragma unroll
    for (int i = 0; i < TRI_PER_THREAD; ++i) acc[i] = 0.0f;

    for (int t = bx; t <= by; ++t) {
        const int k0 = t * TRI_T;
        #pragma unroll
        for (int i = 0; i < TRI_PER_THREAD; ++i) {
            const int r = ty + TRI_ROWS * i;
            const int ar = row0 + r;       // row of A
            const int ak = k0 + tx;        // column of A
            const int bk = k0 + r;         // row of B
            As[r][tx] = (ar < M && ak < M) ? A[(size_t)ar * M + ak] : 0.0f;
            Bs[r][tx] = (bk < M && col < M) ? B[(size_t)bk * M + col] : 0.0f;
        }
        __syncthreads();

        #pragma unroll 8
        for (int k = 0; k < TRI_T; ++k) {
            const float b = Bs[k][tx];
            #pragma unroll
            for (int i = 0; i < TRI_PER_THREAD; ++i) acc[i] = fmaf(As[ty + TRI_ROWS * i][k], b, acc[i]);
        }
        __syncthreads();  // tiles are overwritten by the next t
    }

    #pragma unroll
    for (int i = 0; i < TRI_PER_THREAD; ++i) {
        const int r = row0 + ty + TRI_ROWS * i;
        if (r < M && col < M) C[(size_t)r * M + col] = (col <= r) ? acc[i] : 0.0f;
    }
}

// ---- host ----
torch::Tensor tril_matmul_tiled(torch::Tensor A, torch::Tensor B) {
    TORCH_CHECK(A.is_cuda(), "A must be a CUDA tensor");
    TORCH_CHECK(B.is_cuda(), "B must be a CUDA tensor");
    TORCH_CHECK(A.is_contiguous() && B.is_contiguous(), "A and B must be contiguous");
    TORCH_CHECK(A.scalar_type() == torch::kFloat32 && B.scalar_type() == torch::kFloat32, "float32 only");
    TORCH_CHECK(A.dim() == 2 && A.size(0) == A.size(1), "A must be square");
    TORCH_CHECK(B.dim() == 2 && B.size(0) == A.size(0) && B.size(1) == A.size(1), "B must match A");

    const int M = (int)A.size(0);
    auto C = torch::empty({M, M}, A.options());
    if (M == 0) return C;

    const int tiles = (M + TRI_T - 1) / TRI_T;
    TORCH_CHECK(tiles <= 65535, "M too large for the grid's y dimension");
    const dim3 block(TRI_T, TRI_ROWS);
    const dim3 grid(tiles, tiles);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    tril_tiled_kernel<<<grid, block, 0, stream>>>(A.data_ptr<float>(), B.data_ptr<float>(),
                                                  C.data_ptr<float>(), M);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "tril_tiled_kernel launch failed: ", cudaGetErrorString(err));
    return C;
}
