#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// Register-tiled C = A * B for symmetric N x N matrices. A 16x16 block computes a 64x64 tile of
// C; thread (tx, ty) owns the contiguous 4x4 patch at rows 4*ty.., columns 4*tx... K is consumed
// in slabs of 8. Symmetry of B lets its slab come from rows of B (B[k][j] == B[j][k]), so both
// slabs are loaded the same way, along contiguous rows, and stored k-major: As[k][m], Bs[k][n].
// The inner loop then fetches a thread's four A values and four B values with one float4 read
// each from shared memory. Rows are padded from 64 to 68 floats: still a multiple of 16 bytes,
// so the float4 reads stay aligned, while the transposing stores spread over all 32 banks.
#define SR_BM 64
#define SR_BN 64
#define SR_BK 8
#define SR_PAD 4
#define SR_DIM 16
#define SR_THREADS (SR_DIM * SR_DIM)

__global__ void sym_regtile_f4_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                      float* __restrict__ C, int N) {
    __shared__ __align__(16) float As[SR_BK][SR_BM + SR_PAD];
    __shared__ __align__(16) float Bs[SR_BK][SR_BN + SR_PAD];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int tid = ty * SR_DIM + tx;
    const int row0 = blockIdx.y * SR_BM;
    const int col0 = blockIdx.x * SR_BN;

    float acc[4][4] = {};

    for (int k0 = 0; k0 < N; k0 += SR_BK) {
        // 64 rows x 8 k per slab = 512 elements, two per thread; consecutive threads walk k.
        for (int l = tid; l < SR_BM * SR_BK; l += SR_THREADS) {
            const int r = l / SR_BK;
            const int kk = l % SR_BK;
            const int gk = k0 + kk;
            const int ga = row0 + r;
            const int gb = col0 + r;
            As[kk][r] = (ga < N && gk < N) ? A[(size_t)ga * N + gk] : 0.0f;
            Bs[kk][r] = (gb < N && gk < N) ? B[(size_t)gb * N + gk] : 0.0f;  // = B[gk][gb]
        }
        __syncthreads();

        #pragma unroll
        for (int kk = 0; kk < SR_BK; ++kk) {
            const float4 a = *reinterpret_cast<const float4*>(&As[kk][4 * ty]);
            const float4 b = *reinterpret_cast<const float4*>(&Bs[kk][4 * tx]);
            const float av[4] = {a.x, a.y, a.z, a.w};
            const float bv[4] = {b.x, b.y, b.z, b.w};
            #pragma unroll
            for (int i = 0; i < 4; ++i)
                #pragma unroll
                for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
        }
        __syncthreads();  // the slab must be consumed before the next k0 overwrites it
    }

    #pragma unroll
    for (int i = 0; i < 4; ++i) {
        const int r = row0 + 4 * ty + i;
        if (r >= N) break;
        #pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int c = col0 + 4 * tx + j;
            if (c < N) C[(size_t)r * N + c] = acc[i][j];
        }
    }
}

// ---- host ----
torch::Tensor symmetric_matmul_regtile(torch::Tensor A, torch::Tensor B) {
    TORCH_CHECK(A.is_cuda(), "A must be a CUDA tensor");
    TORCH_CHECK(B.is_cuda(), "B must be a CUDA tensor");
    TORCH_CHECK(A.is_contiguous() && B.is_contiguous(), "A and B must be contiguous");
    TORCH_CHECK(A.scalar_type() == torch::kFloat32 && B.scalar_type() == torch::kFloat32, "float32 only");
    TORCH_CHECK(A.dim() == 2 && A.size(0) == A.size(1), "A must be square");
    TORCH_CHECK(B.dim() == 2 && B.size(0) == A.size(0) && B.size(1) == A.size(1), "B must match A");

    const int N = (int)A.size(0);
    auto C = torch::empty({N, N}, A.options());
    if (N == 0) return C;

    const dim3 block(SR_DIM, SR_DIM);
    const dim3 grid((N + SR_BN - 1) / SR_BN, (N + SR_BM - 1) / SR_BM);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    sym_regtile_f4_kernel<<<grid, block, 0, stream>>>(A.data_ptr<float>(), B.data_ptr<float>(),
                                                      C.data_ptr<float>(), N);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "sym_regtile_f4_kernel launch failed: ", cudaGetErrorString(err));
    return C;
}
