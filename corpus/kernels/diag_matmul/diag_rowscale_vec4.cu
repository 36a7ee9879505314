#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <stdint.h>

// diag(A) * B as a row scaling, vectorised: C[i][:] = A[i] * B[i][:].
// Blocks walk the rows (grid-stride); the block's threads sweep one row with float4 accesses.
// Row i starts at B + i*M, which is 16-byte aligned only when i*M is a multiple of 4 (given an
// aligned base), so each row is split into a scalar head up to the first 16-byte boundary, a
// float4 body, and a scalar tail of 0..3 elements. B and C have the same base alignment (checked
// on the host), so the same split is aligned for both. With vec == false the head is the row.
#define DV_THREADS 256
#define DV_MAX_BLOCKS 4096

__global__ void diag_rowscale_vec4_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                          float* __restrict__ C, int N, int M, bool vec) {
    for (int row = blockIdx.x; row < N; row += gridDim.x) {
        const float s = A[row];
        const float* b = B + (size_t)row * M;
        float* c = C + (size_t)row * M;

        int head = vec ? (int)(((16u - ((uintptr_t)b & 15u)) & 15u) >> 2) : M;
        if (head > M) head = M;
        const int n4 = (M - head) >> 2;
        const int tail = head + 4 * n4;

        for (int j = threadIdx.x; j < head; j += blockDim.x) c[j] = s * b[j];

        const float4* b4 = reinterpret_cast<const float4*>(b + head);
        float4* c4 = reinterpret_cast<float4*>(c + head);
        for (int v = threadIdx.x; v < n4; v += blockDim.x) {
            float4 q = b4[v];
            q.x *= s;
            q.y *= s;
            q.z *= s;
            q.w *= s;
            c4[v] = q;
        }

        for (int j = tail + threadIdx.x; j < M; j += blockDim.x) c[j] = s * b[j];
    }
}

// ---- host ----
torch::Tensor diag_matmul_vec4(torch::Tensor A, torch::Tensor B) {
    TORCH_CHECK(A.is_cuda(), "A must be a CUDA tensor");
    TORCH_CHECK(B.is_cuda(), "B must be a CUDA tensor");
    TORCH_CHECK(A.is_contiguous() && B.is_contiguous(), "A and B must be contiguous");
    TORCH_CHECK(A.scalar_type() == torch::kFloat32 && B.scalar_type() == torch::kFloat32, "float32 only");
    TORCH_CHECK(A.dim() == 1 && B.dim() == 2 && B.size(0) == A.size(0),
                "expected A [N] (the diagonal) and B [N, M]");

    const int N = (int)B.size(0);
    const int M = (int)B.size(1);
    auto C = torch::empty({N, M}, B.options());
    if (N == 0 || M == 0) return C;

    const float* bp = B.data_ptr<float>();
    float* cp = C.data_ptr<float>();
    // float4 needs 16-byte aligned addresses; a sliced B may start anywhere.
    const bool vec = (reinterpret_cast<uintptr_t>(bp) % 16 == 0) &&
                     (reinterpret_cast<uintptr_t>(cp) % 16 == 0);

    const int blocks = N < DV_MAX_BLOCKS ? N : DV_MAX_BLOCKS;
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    diag_rowscale_vec4_kernel<<<blocks, DV_THREADS, 0, stream>>>(A.data_ptr<float>(), bp, cp, N, M, vec);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "diag_rowscale_vec4_kernel launch failed: ", cudaGetErrorString(err));
    return C;
}
