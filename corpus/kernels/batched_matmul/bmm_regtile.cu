#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// Register-tiled batched matmul. A 16x16 block computes a 64x64 tile of C[b]; thread (tx, ty)
// owns the contiguous 4x4 patch at rows 4*ty.., columns 4*tx.., kept in registers, so each value
// read from shared memory feeds four multiply-adds. K is consumed in slabs of 8: A's slab is
// stored transposed (k-major) so a thread's four A values sit side by side, B's as is.
// Persistent along the batch: a few z-slices (RB_MAX_Z) each walk the batch with a stride of
// gridDim.z, so the grid does not grow with the batch and any batch size fits the grid limit.
constexpr int RB_BM = 64;
constexpr int RB_BN = 64;
constexpr int RB_BK = 8;
constexpr int RB_TM = 4;
constexpr int RB_TN = 4;
constexpr int RB_THREADS = (RB_BM / RB_TM) * (RB_BN / RB_TN);  // 256
constexpr int RB_MAX_Z = 4;

__global__ void bmm_regtile_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                   float* __restrict__ C, int batch, int M, int K, int N) {
    __shared__ float At[RB_BK][RB_BM];
    __shared__ float Bt[RB_BK][RB_BN];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int tid = ty * blockDim.x + tx;
    const int row0 = blockIdx.y * RB_BM;
    const int col0 = blockIdx.x * RB_BN;

    for (int b = blockIdx.z; b < batch; b += gridDim.z) {
        const float* Ab = A + (long long)b * M * K;
        const float* Bb = B + (long long)b * K * N;
        float* Cb = C + (long long)b * M * N;

        float acc[RB_TM][RB_TN] = {};

        for (int k0 = 0; k0 < K; k0 += RB_BK) {
            // 64*8 elements of each slab, two per thread; zero past the matrix edges.
            for (int l = tid; l < RB_BM * RB_BK; l += RB_THREADS) {
                const int r = l / RB_BK, kk = l % RB_BK;
                const int gr = row0 + r, gk = k0 + kk;
                At[kk][r] = (gr < M && gk < K) ? Ab[(long long)gr * K + gk] : 0.0f;
            }
            for (int l = tid; l < RB_BK * RB_BN; l += RB_THREADS) {
                const int kk = l / RB_BN, c = l % RB_BN;
                const int gk = k0 + kk, gc = col0 + c;
                Bt[kk][c] = (gk < K && gc < N) ? Bb[(long long)gk * N + gc] : 0.0f;
            }
            __syncthreads();

            #pragma unroll
            for (int kk = 0; kk < RB_BK; ++kk) {
                float a[RB_TM], bv[RB_TN];
                #pragma unroll
                for (int i = 0; i < RB_TM; ++i) a[i] = At[kk][ty * RB_TM + i];
                #pragma unroll
                for (int j = 0; j < RB_TN; ++j) bv[j] = Bt[kk][tx * RB_TN + j];
                #pragma unroll
                for (int i = 0; i < RB_TM; ++i)
                    #pragma unroll
                    for (int j = 0; j < RB_TN; ++j) acc[i][j] = fmaf(a[i], bv[j], acc[i][j]);
            }
            __syncthreads();  // slabs consumed before the next k0 (or the next batch) reloads them
        }

        #pragma unroll
        for (int i = 0; i < RB_TM; ++i) {
            const int r = row0 + ty * RB_TM + i;
            if (r >= M) break;
            #pragma unroll
            for (int j = 0; j < RB_TN; ++j) {
                const int c = col0 + tx * RB_TN + j;
                if (c < N) Cb[(long long)r * N + c] = acc[i][j];
            }
        }
    }
}

// ---- host ----
torch::Tensor bmm_regtile_forward(torch::Tensor A, torch::Tensor B) {
    TORCH_CHECK(A.is_cuda(), "A must be a CUDA tensor");
    TORCH_CHECK(B.is_cuda(), "B must be a CUDA tensor");
    TORCH_CHECK(A.is_contiguous() && B.is_contiguous(), "A and B must be contiguous");
    TORCH_CHECK(A.scalar_type() == torch::kFloat32 && B.scalar_type() == torch::kFloat32, "float32 only");
    TORCH_CHECK(A.dim() == 3 && B.dim() == 3, "A and B must be 3-D");
    TORCH_CHECK(A.size(0) == B.size(0) && A.size(2) == B.size(1),
                "expected A [batch, M, K] and B [batch, K, N]");

    const int batch = (int)A.size(0);
    const int M = (int)A.size(1);
    const int K = (int)A.size(2);
    const int N = (int)B.size(2);
    auto C = torch::empty({batch, M, N}, A.options());
    if (C.numel() == 0) return C;

    const dim3 block(RB_BN / RB_TN, RB_BM / RB_TM);
    const dim3 grid((N + RB_BN - 1) / RB_BN, (M + RB_BM - 1) / RB_BM, batch < RB_MAX_Z ? batch : RB_MAX_Z);
    bmm_regtile_kernel<<<grid, block, 0, at::cuda::getCurrentCUDAStream()>>>(
        A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>(), batch, M, K, N);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "bmm_regtile_kernel launch failed: ", cudaGetErrorString(err));
    return C;
}
