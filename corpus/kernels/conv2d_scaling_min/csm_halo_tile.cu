#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

#define CSM_TILE 16     // output tile side; the block is CSM_TILE x CSM_TILE threads
#define CSM_MAXK 7      // largest kernel side the static shared arrays hold
#define CSM_COPB 8      // output channels accumulated at once (registers per thread)
#define CSM_IN_T (CSM_TILE + CSM_MAXK - 1)

// Tiled valid convolution + scaling + min over channels. A block owns a 16x16 patch of output
// pixels of one sample and walks the output channels in groups of CSM_COPB. For each group and
// each input channel it stages the (16 + K - 1)^2 input patch (tile plus right/bottom halo) and
// the group's K x K filters in shared memory, accumulates CSM_COPB dot products per thread in
// registers, and after the last input channel folds the scaled results into a running minimum.
// Only that minimum leaves the block.
__global__ void csm_halo_tile_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                     const float* __restrict__ bias, float* __restrict__ y,
                                     int C_in, int H, int W, int C_out, int K, int H_out, int W_out,
                                     float scale) {
    __shared__ float patch[CSM_IN_T * CSM_IN_T];
    __shared__ float filt[CSM_COPB * CSM_MAXK * CSM_MAXK];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int tid = ty * CSM_TILE + tx;
    const int nthreads = CSM_TILE * CSM_TILE;
    const int n = blockIdx.z;
    const int oh0 = blockIdx.y * CSM_TILE;
    const int ow0 = blockIdx.x * CSM_TILE;
    const int oh = oh0 + ty;
    const int ow = ow0 + tx;
    const int in_t = CSM_TILE + K - 1;   // patch side actually used for this K
    const int kk2 = K * K;

    float m = __int_as_float(0x7f800000);  // +inf

    for (int co0 = 0; co0 < C_out; co0 += CSM_COPB) {
        float acc[CSM_COPB];
        #pragma unroll
        for (int c = 0; c < CSM_COPB; ++c) acc[c] = 0.0f;

        for (int ci = 0; ci < C_in; ++ci) {
            const float* plane = x + ((size_t)n * C_in + ci) * H * W;
            // Cells past the input edge only feed pixels past H_out / W_out, which are not
            // stored: zero them rather than read out of bounds.
            for (int e = tid; e < in_t * in_t; e += nthreads) {
                const int r = e / in_t;
                const int c = e - r * in_t;
                const int gr = oh0 + r;
                const int gc = ow0 + c;
                patch[r * CSM_IN_T + c] = (gr < H && gc < W) ? plane[(size_t)gr * W + gc] : 0.0f;
            }
            for (int e = tid; e < CSM_COPB * kk2; e += nthreads) {
                const int c = e / kk2;
                const int co = co0 + c;
                filt[e] = (co < C_out) ? w[((size_t)co * C_in + ci) * kk2 + (e - c * kk2)] : 0.0f;
            }
            __syncthreads();

            for (int kh = 0; kh < K; ++kh) {
                for (int kw = 0; kw < K; ++kw) {
                    const float v = patch[(ty + kh) * CSM_IN_T + (tx + kw)];
                    #pragma unroll
                    for (int c = 0; c < CSM_COPB; ++c) {
                        acc[c] += v * filt[c * kk2 + kh * K + kw];
                    }
                }
            }
            // The next input channel overwrites patch and filt: everyone must be done reading.
            __syncthreads();
        }

        // Epilogue of the group: bias, scale, min. Channels past C_out (zero filters) are skipped
        // so their 0 + garbage bias never competes.
        #pragma unroll
        for (int c = 0; c < CSM_COPB; ++c) {
            const int co = co0 + c;
            if (co < C_out) {
                m = fminf(m, (acc[c] + bias[co]) * scale);
            }
        }
    }

    if (oh < H_out && ow < W_out) {
        y[((size_t)n * H_out + oh) * W_out + ow] = m;
    }
}

// ---- host ----
torch::Tensor csm_halo_tile_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias,
                                    double scale_factor) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(weight.is_cuda() && bias.is_cuda(), "parameters must be CUDA tensors");
    TORCH_CHECK(x.is_contiguous() && weight.is_contiguous() && bias.is_contiguous(),
                "contiguous tensors required");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "float32 only");
    TORCH_CHECK(x.dim() == 4, "x must be [B, C_in, H, W]");
    TORCH_CHECK(weight.dim() == 4 && weight.size(1) == x.size(1), "weight must be [C_out, C_in, K, K]");
    TORCH_CHECK(weight.size(2) == weight.size(3), "square kernels only");

    const int B = (int)x.size(0);
    const int C_in = (int)x.size(1);
    const int H = (int)x.size(2);
    const int W = (int)x.size(3);
    const int C_out = (int)weight.size(0);
    const int K = (int)weight.size(2);
    TORCH_CHECK(K >= 1 && K <= CSM_MAXK, "kernel side must be in [1, 7] for the static tile");
    TORCH_CHECK(bias.numel() == C_out, "bias must have C_out elements");
    TORCH_CHECK(H >= K && W >= K, "input smaller than the kernel");
    TORCH_CHECK(B <= 65535, "batch must fit in gridDim.z");
    const int H_out = H - K + 1;
    const int W_out = W - K + 1;

    torch::Tensor y = torch::empty({B, 1, H_out, W_out}, x.options());
    if (y.numel() == 0) return y;

    const dim3 block(CSM_TILE, CSM_TILE);
    const dim3 grid((W_out + CSM_TILE - 1) / CSM_TILE, (H_out + CSM_TILE - 1) / CSM_TILE, B);
    csm_halo_tile_kernel<<<grid, block, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), weight.data_ptr<float>(), bias.data_ptr<float>(), y.data_ptr<float>(),
        C_in, H, W, C_out, K, H_out, W_out, (float)scale_factor);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
