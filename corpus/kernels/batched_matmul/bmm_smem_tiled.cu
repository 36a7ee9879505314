#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// C[b] = A[b] * B[b]. A 3-D grid: x and y tile C[b] in TILE x TILE blocks, z is the batch index.
// Each block steps along K one TILE-wide slab at a time: the slab of A[b] and of B[b] is loaded
// into shared memory (one element per thread, zero outside the matrices, so partial tiles add
// nothing), the block synchronises, and each thread accumulates its row-by-column product.
#define BMM_TILE 16

__global__ void bmm_smem_tiled_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                      float* __restrict__ C, int M, int K, int N) {
    __shared__ float As[BMM_TILE][BMM_TILE];
    __shared__ float Bs[BMM_TILE][BMM_TILE];

    const int b = blockIdx.z;
    // Per-batch offsets in 64-bit: batch * K * N passes 2^31 at KernelBench's sizes.
    const float* Ab = A + (size_t)b * M * K;
    const float* Bb = B + (size_t)b * K * N;
    float* Cb = C + (size_t)b * M * N;

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * BMM_TILE + ty;
    const int col = blockIdx.x * BMM_TILE + tx;

    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += BMM_TILE) {
        const int ak = k0 + tx;
        const int bk = k0 + ty;
        As[ty][tx] = (row < M && ak < K) ? Ab[(size_t)row * K + ak] : 0.0f;
        Bs[ty][tx] = (bk < K && col < N) ? Bb[(size_t)bk * N + col] : 0.0f;
        __syncthreads();

        for (int k = 0; k < BMM_TILE; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();  // the slab is still being read until here; the next load overwrites it
    }

    if (row < M && col < N) Cb[(size_t)row * N + col] = acc;
}

// ---- host ----
torch::Tensor bmm_smem_tiled_forward(torch::Tensor A, torch::Tensor B) {
    TORCH_CHECK(A.is_cuda() && B.is_cuda(), "A and B must be CUDA tensors");
    TORCH_CHECK(A.is_contiguous() && B.is_contiguous(), "A and B must be contiguous");
    TORCH_CHECK(A.scalar_type() == torch::kFloat32 && B.scalar_type() == torch::kFloat32, "float32 only");
    TORCH_CHECK(A.dim() == 3 && B.dim() == 3, "A and B must be [batch, M, K] and [batch, K, N]");
    TORCH_CHECK(A.size(0) == B.size(0), "batch sizes differ");
    TORCH_CHECK(A.size(2) == B.size(1), "inner dimensions differ");

    const int batch = (int)A.size(0);
    const int M = (int)A.size(1);
    const int K = (int)A.size(2);
    const int N = (int)B.size(2);
    TORCH_CHECK(batch <= 65535, "batch exceeds the grid's z limit");
    auto C = torch::empty({batch, M, N}, A.options());
    if (C.numel() == 0) return C;

    const dim3 block(BMM_TILE, BMM_TILE);
    const dim3 grid((N + BMM_TILE - 1) / BMM_TILE, (M + BMM_TILE - 1) / BMM_TILE, batch);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    bmm_smem_tiled_kernel<<<grid, block, 0, stream>>>(A.data_ptr<float>(), B.data_ptr<float>(),
                                                      C.data_ptr<float>(), M, K, N);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "bmm_smem_tiled_kernel launch failed: ", cudaGetErrorString(err));
    return C;
}
