#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// diag(A) * B without forming the N x N diagonal matrix: C[i][j] = A[i] * B[i][j].
// One thread per element on a 2-D grid (x: columns, y: rows). The grid's y extent is capped at
// 65535 blocks, so rows are walked with a stride of the whole grid's height.
#define DR_BX 32
#define DR_BY 8

__global__ void diag_rowscale_2d_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                        float* __restrict__ C, int N, int M) {
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= M) return;
    const int row_stride = gridDim.y * blockDim.y;
    for (int row = blockIdx.y * blockDim.y + threadIdx.y; row < N; row += row_stride) {
        const size_t idx = (size_t)row * M + col;
        C[idx] = A[row] * B[idx];
    }
}

// ---- host ----
torch::Tensor diag_matmul_2d(torch::Tensor A, torch::Tensor B) {
    TORCH_CHECK(A.is_cuda() && B.is_cuda(), "A and B must be CUDA tensors");
    TORCH_CHECK(A.is_contiguous() && B.is_contiguous(), "A and B must be contiguous");
    TORCH_CHECK(A.scalar_type() == torch::kFloat32 && B.scalar_type() == torch::kFloat32, "float32 only");
    TORCH_CHECK(A.dim() == 1, "A must be the diagonal, shape [N]");
    TORCH_CHECK(B.dim() == 2 && B.size(0) == A.size(0), "B must be [N, M]");

    const int N = (int)B.size(0);
    const int M = (int)B.size(1);
    auto C = torch::empty({N, M}, B.options());
    if (N == 0 || M == 0) return C;

    const dim3 block(DR_BX, DR_BY);
    int gy = (N + DR_BY - 1) / DR_BY;
    if (gy > 65535) gy = 65535;
    const dim3 grid((M + DR_BX - 1) / DR_BX, gy);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    diag_rowscale_2d_kernel<<<grid, block, 0, stream>>>(A.data_ptr<float>(), B.data_ptr<float>(),
                                                        C.data_ptr<float>(), N, M);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "diag_rowscale_2d_kernel launch failed: ", cudaGetErrorString(err));
    return C;
}
