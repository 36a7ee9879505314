#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

// Register-blocked SGEMM with the sigmoid-scale-residual tail in the epilogue.
//
// A 16x16 block owns a 64x64 tile of the output; thread (tx, ty) accumulates the 4x4 outputs at
// rows ty + 16 i and columns tx + 16 j (strided, so a warp's stores of one i, j are 16
// consecutive floats). Per K step the block stages a 64x8 slab of x and a 64x8 slab of W,
// both read along K from global memory and stored k-major (As[k][m], Ws[k][n]) so that the
// inner loop reads 4 + 4 values from shared memory for 16 multiply-adds. The +4 padding makes
// the transposing stores conflict-free: 8 threads with the same row but consecutive k land
// 68 floats apart, i.e. 4 banks apart.
#define RT_BM 64
#define RT_BN 64
#define RT_BK 8
#define RT_T 16               // threads per block side
#define RT_TM (RT_BM / RT_T)  // 4 rows per thread
#define RT_TN (RT_BN / RT_T)  // 4 columns per thread
#define RT_PAD 4

__global__ void gssr_regtile_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                    const float* __restrict__ bias, float* __restrict__ out,
                                    int B, int K, int N, float scale) {
    __shared__ float As[RT_BK][RT_BM + RT_PAD];
    __shared__ float Ws[RT_BK][RT_BN + RT_PAD];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int tid = ty * RT_T + tx;
    const int row0 = blockIdx.y * RT_BM;
    const int col0 = blockIdx.x * RT_BN;

    float acc[RT_TM][RT_TN];
    #pragma unroll
    for (int i = 0; i < RT_TM; ++i)
        #pragma unroll
        for (int j = 0; j < RT_TN; ++j) acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += RT_BK) {
        // 64 x 8 = 512 elements per operand and 256 threads: two of each per thread. Element l
        // is row l / 8, k l % 8, so 8 consecutive threads read 8 consecutive floats of a row.
        for (int l = tid; l < RT_BM * RT_BK; l += RT_T * RT_T) {
            const int r = l / RT_BK;
            const int c = l % RT_BK;
            const int gk = k0 + c;
            const int gm = row0 + r;
            const int gn = col0 + r;
            As[c][r] = (gm < B && gk < K) ? x[(size_t)gm * K + gk] : 0.0f;
            Ws[c][r] = (gn < N && gk < K) ? w[(size_t)gn * K + gk] : 0.0f;
        }
        __syncthreads();  // slabs complete before anyone reads them

        #pragma unroll
        for (int kk = 0; kk < RT_BK; ++kk) {
            float a[RT_TM];
            float bv[RT_TN];
            #pragma unroll
            for (int i = 0; i < RT_TM; ++i) a[i] = As[kk][ty + RT_T * i];
            #pragma unroll
            for (int j = 0; j < RT_TN; ++j) bv[j] = Ws[kk][tx + RT_T * j];
            #pragma unroll
            for (int i = 0; i < RT_TM; ++i)
                #pragma unroll
                for (int j = 0; j < RT_TN; ++j) acc[i][j] = fmaf(a[i], bv[j], acc[i][j]);
        }
        __syncthreads();  // everyone done reading before the next slabs overwrite them
    }

    #pragma unroll
    for (int j = 0; j < RT_TN; ++j) {
        const int n = col0 + tx + RT_T * j;
        if (n >= N) continue;
        const float bn = bias[n];
        #pragma unroll
        for (int i = 0; i < RT_TM; ++i) {
            const int m = row0 + ty + RT_T * i;
            if (m < B) {
                const float z = acc[i][j] + bn;
                const float sig = 1.0f / (1.0f + __expf(-z));
                out[(size_t)m * N + n] = fmaf(sig, scale, z);
            }
        }
    }
}

// ---- host ----
torch::Tensor gssr_regtile_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias,
                                   double scaling_factor) {
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

    const dim3 block(RT_T, RT_T);
    const dim3 grid((N + RT_BN - 1) / RT_BN, (B + RT_BM - 1) / RT_BM);
    TORCH_CHECK(grid.y <= 65535, "batch too large for the grid");
    gssr_regtile_kernel<<<grid, block, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), weight.data_ptr<float>(), bias.data_ptr<float>(), out.data_ptr<float>(),
        B, K, N, (float)scaling_factor);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}
