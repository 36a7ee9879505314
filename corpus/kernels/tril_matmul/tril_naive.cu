#include <torch/extension.h>
#include <cuda_runtime.h>

// C = tril(A * B) for lower-triangular M x M matrices, one thread per output element.
// A[row][k] is zero for k > row and B[k][col] is zero for k < col, so only k in [col, row]
// contributes; outputs above the diagonal (col > row) are zero without any work.
__global__ void tril_naive_kernel(const float* A, const float* B, float* C, int M) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < M) {
        float sum = 0.0f;
        if (col <= row) {
            for (int k = col; k <= row; k++) {
                sum += A[row * M + k] * B[k * M + col];
            }
        }
        C[row * M + col] = sum;
    }
}

// ---- host ----
torch::Tensor tril_matmul_cuda(torch::Tensor A, torch::Tensor B) {
    TORCH_CHECK(A.is_cuda() && B.is_cuda(), "inputs must be CUDA tensors");
    TORCH_CHECK(A.dim() == 2 && B.dim() == 2, "inputs must be matrices");
    TORCH_CHECK(A.size(0) == A.size(1) && B.size(0) == B.size(1) && A.size(0) == B.size(0),
                "inputs must be square matrices of the same size");
    A = A.contiguous();
    B = B.contiguous();
    int M = A.size(0);
    auto C = torch::empty({M, M}, A.options());

    dim3 threads(16, 16);
    dim3 blocks((M + threads.x - 1) / threads.x, (M + threads.y - 1) / threads.y);
    tril_naive_kernel<<<blocks, threads>>>(A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>(), M);
    return C;
}
