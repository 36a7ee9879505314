#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

// Double-buffered shared-memory GEMM with the Swish * scale tail in the epilogue.
//
// A 16x16 block owns a 32x32 output tile; thread (tx, ty) accumulates rows ty and ty + 16 of
// columns tx and tx + 16. The K loop walks 16-wide slabs of x and W through two shared buffers:
// while the block multiplies out of buffer `cur`, each thread has already fetched its share of
// the next slab into registers, and stores it into the other buffer after its multiply-adds.
// One barrier per step is then enough: the stores of step t go to the buffer nobody reads in
// step t, and the barrier at the end of step t orders them before the reads of step t + 1 and
// orders the reads of step t before the overwrite in step t + 1.
#define DB_BM 32
#define DB_BN 32
#define DB_BK 16
#define DB_T 16
#define DB_LOADS ((DB_BM * DB_BK) / (DB_T * DB_T))  // 2 elements per operand per thread

__device__ __forceinline__ void db_fetch(const float* __restrict__ x, const float* __restrict__ w,
                                         int B, int K, int N, int row0, int col0, int k0, int tid,
                                         float (&xr)[DB_LOADS], float (&wr)[DB_LOADS]) {
    #pragma unroll
    for (int i = 0; i < DB_LOADS; ++i) {
        const int l = tid + i * DB_T * DB_T;
        const int r = l / DB_BK;
        const int c = l % DB_BK;
        const int gk = k0 + c;
        xr[i] = (row0 + r < B && gk < K) ? x[(size_t)(row0 + r) * K + gk] : 0.0f;
        wr[i] = (col0 + r < N && gk < K) ? w[(size_t)(col0 + r) * K + gk] : 0.0f;
    }
}

__global__ void mss_tiled_dbuf_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                      const float* __restrict__ bias, float* __restrict__ out,
                                      int B, int K, int N, float scale) {
    __shared__ float xs[2][DB_BM][DB_BK + 1];
    __shared__ float ws[2][DB_BN][DB_BK + 1];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int tid = ty * DB_T + tx;
    const int row0 = blockIdx.y * DB_BM;
    const int col0 = blockIdx.x * DB_BN;
    const int steps = (K + DB_BK - 1) / DB_BK;

    float xr[DB_LOADS], wr[DB_LOADS];
    float acc00 = 0.0f, acc01 = 0.0f, acc10 = 0.0f, acc11 = 0.0f;

    // Prologue: slab 0 into buffer 0.
    db_fetch(x, w, B, K, N, row0, col0, 0, tid, xr, wr);
    #pragma unroll
    for (int i = 0; i < DB_LOADS; ++i) {
        const int l = tid + i * DB_T * DB_T;
        xs[0][l / DB_BK][l % DB_BK] = xr[i];
        ws[0][l / DB_BK][l % DB_BK] = wr[i];
    }
    __syncthreads();

    for (int t = 0; t < steps; ++t) {
        const int cur = t & 1;
        const bool more = (t + 1 < steps);
        if (more) db_fetch(x, w, B, K, N, row0, col0, (t + 1) * DB_BK, tid, xr, wr);  // in flight during the math

        #pragma unroll
        for (int kk = 0; kk < DB_BK; ++kk) {
            const float a0 = xs[cur][ty][kk];
            const float a1 = xs[cur][ty + DB_T][kk];
            const float b0 = ws[cur][tx][kk];
            const float b1 = ws[cur][tx + DB_T][kk];
            acc00 = fmaf(a0, b0, acc00);
            acc01 = fmaf(a0, b1, acc01);
            acc10 = fmaf(a1, b0, acc10);
            acc11 = fmaf(a1, b1, acc11);
        }

        if (more) {
            #pragma unroll
            for (int i = 0; i < DB_LOADS; ++i) {
                const int l = tid + i * DB_T * DB_T;
                xs[cur ^ 1][l / DB_BK][l % DB_BK] = xr[i];
                ws[cur ^ 1][l / DB_BK][l % DB_BK] = wr[i];
            }
        }
        __syncthreads();
    }

    const float accs[2][2] = {{acc00, acc01}, {acc10, acc11}};
    #pragma unroll
    for (int i = 0; i < 2; ++i) {
        const int m = row0 + ty + DB_T * i;
        if (m >= B) continue;
        #pragma unroll
        for (int j = 0; j < 2; ++j) {
            const int n = col0 + tx + DB_T * j;
            if (n < N) {
                const float z = accs[i][j] + bias[n];
                const float sig = 1.0f / (1.0f + __expf(-z));
                out[(size_t)m * N + n] = z * sig * scale;
            }
        }
    }
}

// ---- host ----
torch::Tensor mss_tiled_dbuf_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias, double scaling_factor) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(weight.is_cuda() && bias.is_cuda(), "weight and bias must be CUDA tensors");
    TORCH_CHECK(x.is_contiguous() && weight.is_contiguous() && bias.is_contiguous(), "contiguous inputs required");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "float32 only");
    TORCH_CHECK(x.dim() == 2 && weight.dim() == 2 && weight.size(1) == x.size(1), "x [B, K], weight [N, K]");
    TORCH_CHECK(bias.numel() == weight.size(0), "bias must have N elements");

    const int B = (int)x.size(0);
    const int K = (int)x.size(1);
    const int N = (int)weight.size(0);
    auto out = torch::empty({B, N}, x.options());
    if (B == 0 || N == 0) return out;

    const dim3 block(DB_T, DB_T);
    const dim3 grid((N + DB_BN - 1) / DB_BN, (B + DB_BM - 1) / DB_BM);
    TORCH_CHECK(grid.y <= 65535, "batch too large for the grid");
    mss_tiled_dbuf_kernel<<<grid, block, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), weight.data_ptr<float>(), bias.data_ptr<float>(), out.data_ptr<float>(),
        B, K, N, (float)scaling_factor);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}
