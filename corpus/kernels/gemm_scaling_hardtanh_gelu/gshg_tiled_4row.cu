#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

#define GT_TILE 32   // output tile is GT_TILE x GT_TILE, K is walked GT_TILE at a time
#define GT_ROWS 8    // blockDim.y: each thread owns GT_TILE / GT_ROWS = 4 rows of one column

// Tiled GEMM with the scale / Hardtanh / GELU tail in the epilogue. A 32x8 block computes a
// 32x32 tile of y: thread (tx, ty) accumulates rows ty, ty+8, ty+16, ty+24 of column tx.
// x and W slabs of 32x32 are staged in shared memory, each row padded by one float so that
// ws[tx][kk] (32 different rows across a warp) falls in 32 different banks.
__global__ void gshg_tiled_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                  const float* __restrict__ bias, float* __restrict__ y,
                                  int B, int K, int N, float scale, float lo, float hi) {
    __shared__ float xs[GT_TILE][GT_TILE + 1];
    __shared__ float ws[GT_TILE][GT_TILE + 1];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row0 = blockIdx.y * GT_TILE;
    const int col0 = blockIdx.x * GT_TILE;
    constexpr int PER_THREAD = GT_TILE / GT_ROWS;

    float acc[PER_THREAD];
    #pragma unroll
    for (int i = 0; i < PER_THREAD; ++i) acc[i] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += GT_TILE) {
        const int gk = k0 + tx;
        // Each thread loads 4 rows of both slabs; a warp reads 32 consecutive floats of one row.
        #pragma unroll
        for (int i = 0; i < PER_THREAD; ++i) {
            const int r = ty + GT_ROWS * i;
            const int gb = row0 + r;
            const int gn = col0 + r;
            xs[r][tx] = (gb < B && gk < K) ? x[(size_t)gb * K + gk] : 0.0f;
            ws[r][tx] = (gn < N && gk < K) ? w[(size_t)gn * K + gk] : 0.0f;
        }
        __syncthreads();

        #pragma unroll 8
        for (int kk = 0; kk < GT_TILE; ++kk) {
            const float bv = ws[tx][kk];
            #pragma unroll
            for (int i = 0; i < PER_THREAD; ++i) {
                acc[i] = fmaf(xs[ty + GT_ROWS * i][kk], bv, acc[i]);
            }
        }
        __syncthreads();
    }

    const int n = col0 + tx;
    if (n >= N) return;  // after the last barrier: safe to leave early
    const float bn = bias[n];
    #pragma unroll
    for (int i = 0; i < PER_THREAD; ++i) {
        const int b = row0 + ty + GT_ROWS * i;
        if (b < B) {
            float v = (acc[i] + bn) * scale;
            v = fminf(fmaxf(v, lo), hi);
            y[(size_t)b * N + n] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
        }
    }
}

// ---- host ----
torch::Tensor gshg_tiled_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias,
                                 double scaling_factor, double hardtanh_min, double hardtanh_max) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(weight.is_cuda() && bias.is_cuda(), "weight and bias must be CUDA tensors");
    TORCH_CHECK(x.is_contiguous() && weight.is_contiguous() && bias.is_contiguous(), "contiguous inputs required");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "float32 only");
    TORCH_CHECK(x.dim() == 2 && weight.dim() == 2 && weight.size(1) == x.size(1), "x [B, K], weight [N, K]");
    TORCH_CHECK(bias.numel() == weight.size(0), "bias must have N elements");

    const int B = (int)x.size(0);
    const int K = (int)x.size(1);
    const int N = (int)weight.size(0);
    auto y = torch::empty({B, N}, x.options());
    if (B == 0 || N == 0) return y;

    const dim3 block(GT_TILE, GT_ROWS);
    const dim3 grid((N + GT_TILE - 1) / GT_TILE, (B + GT_TILE - 1) / GT_TILE);
    gshg_tiled_kernel<<<grid, block, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), weight.data_ptr<float>(), bias.data_ptr<float>(), y.data_ptr<float>(),
        B, K, N, (float)scaling_factor, (float)hardtanh_min, (float)hardtanh_max);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
