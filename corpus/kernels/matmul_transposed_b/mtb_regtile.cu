#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <stdint.h>

// Register-tiled C = A * B^T (A [M, K], B [N, K]). A block of 256 threads computes a 64x64 tile
// of C; thread (tx, ty) = (tid % 16, tid / 16) owns the 4x4 outputs at rows ty + 16*i and
// columns tx + 16*j, accumulated in registers. K is consumed in slabs of 16. Both operands are
// row-major along K, so each thread fetches one quad of 4 consecutive k from one row of A and
// one row of B: a float4 load when K is a multiple of 4 and the buffers are 16-byte aligned
// (every row then starts aligned), scalar loads otherwise. The quads are stored k-major
// (As[k][m], Bs[k][n]) so the inner loop reads a column of the slab; the +1 pad keeps the
// transposing stores from piling onto one bank.
#define MR_BM 64
#define MR_BN 64
#define MR_BK 16
#define MR_THREADS 256

__device__ __forceinline__ void load_quad(const float* __restrict__ src, int row, int rows, int k,
                                          int K, bool vec, float q[4]) {
    q[0] = q[1] = q[2] = q[3] = 0.0f;
    if (row >= rows) return;
    const float* p = src + (size_t)row * K + k;
    if (vec && k + 3 < K) {
        const float4 v = *reinterpret_cast<const float4*>(p);
        q[0] = v.x; q[1] = v.y; q[2] = v.z; q[3] = v.w;
    } else {
        #pragma unroll
        for (int e = 0; e < 4; ++e)
            if (k + e < K) q[e] = p[e];
    }
}

__global__ void __launch_bounds__(MR_THREADS)
mtb_regtile_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                   int M, int K, int N, bool vec) {
    __shared__ float As[MR_BK][MR_BM + 1];
    __shared__ float Bs[MR_BK][MR_BN + 1];

    const int tid = threadIdx.x;
    const int tx = tid % 16;
    const int ty = tid / 16;
    const int row0 = blockIdx.y * MR_BM;
    const int col0 = blockIdx.x * MR_BN;

    // Loader geometry: 64 rows x 4 quads = 256 quads per operand, one per thread.
    const int lr = tid >> 2;          // row within the tile
    const int lk = (tid & 3) * 4;     // first k of the quad within the slab

    float acc[4][4];
    #pragma unroll
    for (int i = 0; i < 4; ++i)
        #pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += MR_BK) {
        float qa[4], qb[4];
        load_quad(A, row0 + lr, M, k0 + lk, K, vec, qa);
        load_quad(B, col0 + lr, N, k0 + lk, K, vec, qb);
        #pragma unroll
        for (int e = 0; e < 4; ++e) {
            As[lk + e][lr] = qa[e];
            Bs[lk + e][lr] = qb[e];
        }
        __syncthreads();

        #pragma unroll
        for (int kk = 0; kk < MR_BK; ++kk) {
            float a[4], b[4];
            #pragma unroll
            for (int i = 0; i < 4; ++i) a[i] = As[kk][ty + 16 * i];
            #pragma unroll
            for (int j = 0; j < 4; ++j) b[j] = Bs[kk][tx + 16 * j];
            #pragma unroll
            for (int i = 0; i < 4; ++i)
                #pragma unroll
                for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();  // the slab is read until here; the next iteration overwrites it
    }

    #pragma unroll
    for (int i = 0; i < 4; ++i) {
        const int r = row0 + ty + 16 * i;
        if (r >= M) continue;
        #pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int c = col0 + tx + 16 * j;
            if (c < N) C[(size_t)r * N + c] = acc[i][j];
        }
    }
}

// ---- host ----
torch::Tensor matmul_transposed_b_regtile(torch::Tensor A, torch::Tensor B) {
    TORCH_CHECK(A.is_cuda(), "A must be a CUDA tensor");
    TORCH_CHECK(B.is_cuda(), "B must be a CUDA tensor");
    TORCH_CHECK(A.is_contiguous() && B.is_contiguous(), "A and B must be contiguous");
    TORCH_CHECK(A.scalar_type() == torch::kFloat32 && B.scalar_type() == torch::kFloat32, "float32 only");
    TORCH_CHECK(A.dim() == 2 && B.dim() == 2 && A.size(1) == B.size(1),
                "expected A [M, K] and B [N, K]");

    const int M = (int)A.size(0);
    const int K = (int)A.size(1);
    const int N = (int)B.size(0);
    auto C = torch::empty({M, N}, A.options());
    if (M == 0 || N == 0) return C;
    TORCH_CHECK((M + MR_BM - 1) / MR_BM <= 65535, "M too large for the grid's y dimension");

    const float* ap = A.data_ptr<float>();
    const float* bp = B.data_ptr<float>();
    // Rows start at multiples of K floats: aligned for float4 only when K % 4 == 0 and the bases are.
    const bool vec = (K % 4 == 0) && (reinterpret_cast<uintptr_t>(ap) % 16 == 0) &&
                     (reinterpret_cast<uintptr_t>(bp) % 16 == 0);

    const dim3 block(MR_THREADS);
    const dim3 grid((N + MR_BN - 1) / MR_BN, (M + MR_BM - 1) / MR_BM);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    mtb_regtile_kernel<<<grid, block, 0, stream>>>(ap, bp, C.data_ptr<float>(), M, K, N, vec);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "mtb_regtile_kernel launch failed: ", cudaGetErrorString(err));
    return C;
}
