#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// C = A * B for symmetric N x N matrices, one warp per output element.
// C[i][j] = sum_k A[i][k] * B[k][j], and B[k][j] == B[j][k] because B is symmetric, so the
// column of B is read as row j: both operands are then contiguous and a warp's 32 lanes read
// 32 consecutive floats of each row per step (coalesced) instead of striding down a column.
// Lane partial sums are combined with a shuffle tree. Warps take outputs in a grid-stride loop
// (the whole warp moves together, so the full-mask shuffles always see 32 lanes).
#define SW_WARPS_PER_BLOCK 8
#define SW_MAX_BLOCKS 8192

__global__ void sym_warp_dot_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, int N) {
    const int lane = threadIdx.x & 31;
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long num_warps = ((long long)gridDim.x * blockDim.x) >> 5;
    const long long total = (long long)N * N;

    for (long long o = warp; o < total; o += num_warps) {
        const int i = (int)(o / N);
        const int j = (int)(o % N);
        const float* a = A + (size_t)i * N;
        const float* b = B + (size_t)j * N;   // row j of B == column j of B

        float sum = 0.0f;
        for (int k = lane; k < N; k += 32) sum = fmaf(a[k], b[k], sum);

        #pragma unroll
        for (int offset = 16; offset > 0; offset >>= 1)
            sum += __shfl_down_sync(0xffffffffu, sum, offset);
        if (lane == 0) C[o] = sum;
    }
}

// ---- host ----
torch::Tensor symmetric_matmul_warp(torch::Tensor A, torch::Tensor B) {
    TORCH_CHECK(A.is_cuda() && B.is_cuda(), "A and B must be CUDA tensors");
    TORCH_CHECK(A.is_contiguous() && B.is_contiguous(), "A and B must be contiguous");
    TORCH_CHECK(A.scalar_type() == torch::kFloat32 && B.scalar_type() == torch::kFloat32, "float32 only");
    TORCH_CHECK(A.dim() == 2 && A.size(0) == A.size(1), "A must be square");
    TORCH_CHECK(B.dim() == 2 && B.size(0) == A.size(0) && B.size(1) == A.size(1), "B must match A");

    const int N = (int)A.size(0);
    auto C = torch::empty({N, N}, A.options());
    if (N == 0) return C;

    const long long total = (long long)N * N;
    long long blocks = (total + SW_WARPS_PER_BLOCK - 1) / SW_WARPS_PER_BLOCK;
    if (blocks > SW_MAX_BLOCKS) blocks = SW_MAX_BLOCKS;
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    sym_warp_dot_kernel<<<(unsigned int)blocks, 32 * SW_WARPS_PER_BLOCK, 0, stream>>>(
        A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>(), N);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "sym_warp_dot_kernel launch failed: ", cudaGetErrorString(err));
    return C;
}
