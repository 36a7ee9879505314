#include <torch/extension.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

// C[M, N] = A[M, K] @ B[K, N], all float16 in memory. Each TILE x TILE block owns one TILE x TILE
// tile of C and walks K one tile at a time. The operands are widened to float as they enter
// shared memory, and the running dot product stays in float32 (as cuBLAS accumulates half GEMMs):
// a half accumulator would lose ~3 significant digits over a few hundred terms. Elements past
// the matrix edges are staged as zeros, so the partial last tile needs no special case.
template <int TILE>
__global__ void mm_fp16_tiled_kernel(const __half* __restrict__ A, const __half* __restrict__ B,
                                     __half* __restrict__ C, int M, int K, int N) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE + 1];  // +1: padding kept from the transposed-tile variant (Bs[k][tx] is a row read)

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;

    float acc = 0.0f;
    const int tiles = (K + TILE - 1) / TILE;
    for (int t = 0; t < tiles; ++t) {
        const int a_col = t * TILE + tx;
        const int b_row = t * TILE + ty;
        As[ty][tx] = (row < M && a_col < K) ? __half2float(A[(size_t)row * K + a_col]) : 0.0f;
        Bs[ty][tx] = (b_row < K && col < N) ? __half2float(B[(size_t)b_row * N + col]) : 0.0f;
        __syncthreads();

        #pragma unroll
        for (int k = 0; k < TILE; ++k) {
            acc = fmaf(As[ty][k], Bs[k][tx], acc);
        }
        __syncthreads();  // everyone is done with this tile before the next one overwrites it
    }

    if (row < M && col < N) {
        C[(size_t)row * N + col] = __float2half_rn(acc);  // the one rounding to half
    }
}

// ---- host ----
torch::Tensor matmul_fp16_tiled(torch::Tensor A, torch::Tensor B) {
    TORCH_CHECK(A.is_cuda() && B.is_cuda(), "A and B must be CUDA tensors");
    TORCH_CHECK(A.scalar_type() == torch::kHalf && B.scalar_type() == torch::kHalf,
                "A and B must be float16");
    TORCH_CHECK(A.dim() == 2 && B.dim() == 2, "A and B must be matrices");
    TORCH_CHECK(A.size(1) == B.size(0), "inner dimensions differ: A is [M, K], B must be [K, N]");
    torch::Tensor a = A.contiguous();
    torch::Tensor b = B.contiguous();

    const int M = (int)a.size(0);
    const int K = (int)a.size(1);
    const int N = (int)b.size(1);
    auto C = torch::empty({M, N}, a.options());
    if (M == 0 || N == 0) return C;
    if (K == 0) return C.zero_();

    constexpr int TILE = 16;
    dim3 block(TILE, TILE);
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    TORCH_CHECK(grid.y <= 65535, "M too large for gridDim.y");
    mm_fp16_tiled_kernel<TILE><<<grid, block, 0, at::cuda::getCurrentCUDAStream()>>>(
        reinterpret_cast<const __half*>(a.data_ptr<at::Half>()),
        reinterpret_cast<const __half*>(b.data_ptr<at::Half>()),
        reinterpret_cast<__half*>(C.data_ptr<at::Half>()), M, K, N);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return C;
}
