#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// y = A x with one thread per row and a serial dot product. The vector x is shared by every row,
// so the block stages it through shared memory one chunk at a time instead of each thread
// reading it from global memory.
#define MV_THREADS 128
#define MV_CHUNK 1024

__global__ void matvec_thread_row_kernel(const float* __restrict__ A, const float* __restrict__ x,
                                         float* __restrict__ y, int M, int K) {
    __shared__ float xs[MV_CHUNK];
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    // Threads past the last row must not return: they still help load x and reach the barriers.
    const bool active = row < M;
    const float* a = A + (size_t)(active ? row : 0) * K;

    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += MV_CHUNK) {
        const int len = min(MV_CHUNK, K - k0);
        for (int j = threadIdx.x; j < len; j += blockDim.x) xs[j] = x[k0 + j];
        __syncthreads();

        if (active) {
            for (int j = 0; j < len; ++j) acc += a[k0 + j] * xs[j];
        }
        __syncthreads();  // everyone is done with this chunk before the next load overwrites it
    }

    if (active) y[row] = acc;
}

// ---- host ----
torch::Tensor matvec_thread_row_forward(torch::Tensor A, torch::Tensor B) {
    TORCH_CHECK(A.is_cuda(), "A must be a CUDA tensor");
    TORCH_CHECK(B.is_cuda(), "B must be a CUDA tensor");
    TORCH_CHECK(A.is_contiguous() && B.is_contiguous(), "A and B must be contiguous");
    TORCH_CHECK(A.scalar_type() == torch::kFloat32 && B.scalar_type() == torch::kFloat32, "float32 only");
    TORCH_CHECK(A.dim() == 2, "A must be [M, K]");
    TORCH_CHECK(B.dim() == 2 && B.size(0) == A.size(1) && B.size(1) == 1, "B must be [K, 1]");

    const int M = (int)A.size(0);
    const int K = (int)A.size(1);
    auto C = torch::empty({M, 1}, A.options());
    if (M == 0) return C;

    const int blocks = (M + MV_THREADS - 1) / MV_THREADS;
    matvec_thread_row_kernel<<<blocks, MV_THREADS, 0, at::cuda::getCurrentCUDAStream()>>>(
        A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>(), M, K);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "matvec_thread_row_kernel launch failed: ", cudaGetErrorString(err));
    return C;
}
