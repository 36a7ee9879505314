#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// C = A * B^T with A [M, K] and B [N, K], both row-major. A TILE x TILE block computes one tile
// of C. Since B is stored [N, K], the rows of B that feed this tile's columns are read along K
// exactly like the rows of A, so both tiles are loaded with consecutive threads on consecutive k
// (coalesced). The inner product then reads Bs by row (Bs[tx][k]): the tile is padded by one
// column so the 16 threads of a half-warp that differ in tx hit 16 different banks.
#define MTB_TILE 16

__global__ void mtb_smem_tiled_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                      float* __restrict__ C, int M, int K, int N) {
    __shared__ float As[MTB_TILE][MTB_TILE];
    __shared__ float Bs[MTB_TILE][MTB_TILE + 1];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * MTB_TILE + ty;   // row of A and of C
    const int col = blockIdx.x * MTB_TILE + tx;   // column of C = row of B
    const int b_row = blockIdx.x * MTB_TILE + ty; // the row of B this thread loads

    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += MTB_TILE) {
        const int k = k0 + tx;
        As[ty][tx] = (row < M && k < K) ? A[(size_t)row * K + k] : 0.0f;
        Bs[ty][tx] = (b_row < N && k < K) ? B[(size_t)b_row * K + k] : 0.0f;
        __syncthreads();

        #pragma unroll
        for (int kk = 0; kk < MTB_TILE; ++kk) {
            acc = fmaf(As[ty][kk], Bs[tx][kk], acc);
        }
        __syncthreads();  // everyone is done with this slab before the next one overwrites it
    }

    if (row < M && col < N) {
        C[(size_t)row * N + col] = acc;
    }
}

// ---- host ----
torch::Tensor matmul_transposed_b_tiled(torch::Tensor A, torch::Tensor B) {
    TORCH_CHECK(A.is_cuda() && B.is_cuda(), "A and B must be CUDA tensors");
    TORCH_CHECK(A.is_contiguous() && B.is_contiguous(), "A and B must be contiguous");
    TORCH_CHECK(A.scalar_type() == torch::kFloat32 && B.scalar_type() == torch::kFloat32, "float32 only");
    TORCH_CHECK(A.dim() == 2 && B.dim() == 2, "A and B must be matrices");
    TORCH_CHECK(A.size(1) == B.size(1), "A [M, K] and B [N, K] must share K");

    const int M = (int)A.size(0);
    const int K = (int)A.size(1);
    const int N = (int)B.size(0);
    auto C = torch::empty({M, N}, A.options());
    if (M == 0 || N == 0) return C;
    TORCH_CHECK((M + MTB_TILE - 1) / MTB_TILE <= 65535, "M too large for the grid's y dimension");

    const dim3 block(MTB_TILE, MTB_TILE);
    const dim3 grid((N + MTB_TILE - 1) / MTB_TILE, (M + MTB_TILE - 1) / MTB_TILE);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    mtb_smem_tiled_kernel<<<grid, block, 0, stream>>>(A.data_ptr<float>(), B.data_ptr<float>(),
                                                      C.data_ptr<float>(), M, K, N);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "mtb_smem_tiled_kernel launch failed: ", cudaGetErrorString(err));
    return C;
}
