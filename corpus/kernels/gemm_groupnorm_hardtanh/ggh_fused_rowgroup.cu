#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

// One fused kernel: a block owns FR_ROWS rows and one group of C = N / G features, computes
// that [FR_ROWS, C] slice of z = x W^T + b with shared-memory tiles, and normalises it itself.
//
// Block = 32 x FR_ROWS threads: warp ty is row row0 + ty, lane tx owns the group's features
// tx, tx + 32, ... (32-feature chunks). Per chunk the K loop stages an FR_ROWS x 32 slab of x and
// a 32 x 32 slab of W (padded: lane tx reads W row tx, 33 floats apart, so the warp hits 32
// banks). Each lane writes its z values to the output and adds them up; a row is one warp, so
// the group mean and the mean squared deviation are warp-shuffle sums, and the second pass and
// the normalisation re-read only values the same thread wrote (no barrier needed for them).
#define FR_ROWS 8
#define FR_BK 32

__device__ __forceinline__ float fr_warp_sum(float v) {
    #pragma unroll
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

__global__ void ggh_fused_rowgroup_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                          const float* __restrict__ bias, const float* __restrict__ gamma,
                                          const float* __restrict__ beta, float* __restrict__ y,
                                          int B, int K, int N, int G, float eps, float lo, float hi) {
    __shared__ float xs[FR_ROWS][FR_BK];
    __shared__ float ws[32][FR_BK + 1];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int C = N / G;
    const int g0 = blockIdx.x * C;               // first feature of the group
    const int row = blockIdx.y * FR_ROWS + ty;
    const bool row_ok = row < B;                 // the same for the whole warp
    float* yrow = y + (size_t)row * N + g0;

    float sum = 0.0f;
    for (int c0 = 0; c0 < C; c0 += 32) {
        float acc = 0.0f;
        for (int k0 = 0; k0 < K; k0 += FR_BK) {
            const int gk = k0 + tx;
            xs[ty][tx] = (row_ok && gk < K) ? x[(size_t)row * K + gk] : 0.0f;
            #pragma unroll
            for (int i = 0; i < 32 / FR_ROWS; ++i) {
                const int r = ty + FR_ROWS * i;  // feature c0 + r of the group
                ws[r][tx] = (c0 + r < C && gk < K) ? w[(size_t)(g0 + c0 + r) * K + gk] : 0.0f;
            }
            __syncthreads();
            #pragma unroll 8
            for (int kk = 0; kk < FR_BK; ++kk) {
                acc = fmaf(xs[ty][kk], ws[tx][kk], acc);
            }
            __syncthreads();
        }
        const int c = c0 + tx;
        if (row_ok && c < C) {
            const float z = acc + bias[g0 + c];
            yrow[c] = z;
            sum += z;
        }
    }

    // Rows past B have summed nothing; they still take part in the shuffles and write nothing.
    const float mean = fr_warp_sum(sum) / (float)C;
    float sq = 0.0f;
    if (row_ok) {
        for (int c = tx; c < C; c += 32) {
            const float d = yrow[c] - mean;
            sq += d * d;
        }
    }
    const float var = fr_warp_sum(sq) / (float)C;
    const float rstd = rsqrtf(var + eps);

    if (row_ok) {
        for (int c = tx; c < C; c += 32) {
            const float v = fmaf((yrow[c] - mean) * rstd, gamma[g0 + c], beta[g0 + c]);
            yrow[c] = fminf(fmaxf(v, lo), hi);
        }
    }
}

// ---- host ----
torch::Tensor ggh_fused_rowgroup_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias,
                                         torch::Tensor gn_weight, torch::Tensor gn_bias, int64_t num_groups,
                                         double eps, double hardtanh_min, double hardtanh_max) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(weight.is_cuda() && bias.is_cuda() && gn_weight.is_cuda() && gn_bias.is_cuda(),
                "parameters must be CUDA tensors");
    TORCH_CHECK(x.is_contiguous() && weight.is_contiguous() && bias.is_contiguous() &&
                gn_weight.is_contiguous() && gn_bias.is_contiguous(), "contiguous inputs required");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "float32 only");
    TORCH_CHECK(x.dim() == 2 && weight.dim() == 2 && weight.size(1) == x.size(1), "x [B, K], weight [N, K]");
    const int N = (int)weight.size(0);
    TORCH_CHECK(bias.numel() == N && gn_weight.numel() == N && gn_bias.numel() == N, "bias and affine must have N elements");
    TORCH_CHECK(num_groups >= 1 && N % num_groups == 0, "out_features must be a multiple of num_groups");

    const int B = (int)x.size(0);
    const int K = (int)x.size(1);
    const int G = (int)num_groups;
    auto y = torch::empty({B, N}, x.options());
    if (B == 0 || N == 0) return y;

    const dim3 block(32, FR_ROWS);
    const dim3 grid(G, (B + FR_ROWS - 1) / FR_ROWS);
    TORCH_CHECK(grid.y <= 65535, "batch too large for the grid");
    ggh_fused_rowgroup_kernel<<<grid, block, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), weight.data_ptr<float>(), bias.data_ptr<float>(), gn_weight.data_ptr<float>(),
        gn_bias.data_ptr<float>(), y.data_ptr<float>(), B, K, N, G, (float)eps, (float)hardtanh_min,
        (float)hardtanh_max);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
