#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

// Register-blocked matmul: a 16x16 thread block computes a 64x64 tile of C, each thread a 4x4
// micro-tile at rows ty + 16*i and columns tx + 16*j. A and B are staged through shared memory
// in 64x16 / 16x64 slabs (A stored transposed), zero-filled past the matrix edge.
#define RT_BM 64
#define RT_BN 64
#define RT_BK 16
#define RT_T 16
#define RT_M 4

__global__ void matmul_regtile_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                      float* __restrict__ C, int N) {
    __shared__ float As[RT_BK][RT_BM];
    __shared__ float Bs[RT_BK][RT_BN];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int tid = ty * RT_T + tx;
    const int row0 = blockIdx.y * RT_BM;
    const int col0 = blockIdx.x * RT_BN;

    float acc[RT_M][RT_M];
    #pragma unroll
    for (int i = 0; i < RT_M; ++i)
        #pragma unroll
        for (int j = 0; j < RT_M; ++j) acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < N; k0 += RT_BK) {
        for (int l = tid; l < RT_BM * RT_BK; l += RT_T * RT_T) {
            const int r = l / RT_BK;
            const int c = l % RT_BK;
            const int gr = row0 + r;
            const int gc = k0 + c;
            As[c][r] = (gr < N && gc < N) ? A[(size_t)gr * N + gc] : 0.0f;
        }
        for (int l = tid; l < RT_BK * RT_BN; l += RT_T * RT_T) {
            const int r = l / RT_BN;
            const int c = l % RT_BN;
            const int gr = k0 + r;
            const int gc = col0 + c;
            Bs[r][c] = (gr < N && gc < N) ? B[(size_t)gr * N + gc] : 0.0f;
        }
        __syncthreads();

        #pragma unroll
        for (int k = 0; k < RT_BK; ++k) {
            float a[RT_M], b[RT_M];
            #pragma unroll
            for (int i = 0; i < RT_M; ++i) a[i] = As[k][ty + RT_T * i];
            #pragma unroll
            for (int j = 0; j < RT_M; ++j) b[j] = Bs[k][tx + RT_T * j];
            #pragma unroll
            for (int i = 0; i < RT_M; ++i)
                #pragma unroll
                for (int j = 0; j < RT_M; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }

    #pragma unroll
    for (int i = 0; i < RT_M; ++i) {
        const int r = row0 + ty + RT_T * i;
        #pragma unroll
        for (int j = 0; j < RT_M; ++j) {
            const int c = col0 + tx + RT_T * j;
            if (r < N && c < N) C[(size_t)r * N + c] = acc[i][j];
        }
    }
}

// ---- host ----
torch::Tensor matmul_regtile(torch::Tensor A, torch::Tensor B) {
    TORCH_CHECK(A.is_cuda() && B.is_cuda(), "A and B must be CUDA tensors");
    TORCH_CHECK(A.is_contiguous() && B.is_contiguous(), "A and B must be contiguous");
    TORCH_CHECK(A.dim() == 2 && B.dim() == 2 && A.size(0) == A.size(1) && B.size(0) == B.size(1) &&
                A.size(0) == B.size(0), "A and B must be square and of the same size");
    const int N = A.size(0);
    auto C = torch::empty({N, N}, A.options());
    if (N == 0) return C;

    dim3 block(RT_T, RT_T);
    dim3 grid((N + RT_BN - 1) / RT_BN, (N + RT_BM - 1) / RT_BM);
    matmul_regtile_kernel<<<grid, block, 0, at::cuda::getCurrentCUDAStream()>>>(
        A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>(), N);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return C;
}
