#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

#define CRB_TILE 16   // output tile side; the block is CRB_TILE x CRB_TILE threads
#define CRB_COPB 4    // output channels computed per block from one staged input patch

// Tiled valid convolution + conv bias + ReLU + per-channel bias. A block computes a 16x16 patch
// of CRB_COPB output planes of one sample. For each input channel it stages the
// (16 + K - 1)^2 input patch (the tile plus its K - 1 halo on the right and bottom) and the
// CRB_COPB filters of that channel in dynamic shared memory, so each input value is read from
// global memory about once per block instead of K*K*CRB_COPB times.
__global__ void crb_halo_tile_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                     const float* __restrict__ conv_bias, const float* __restrict__ post_bias,
                                     float* __restrict__ y,
                                     int C_in, int H, int W, int C_out, int K, int H_out, int W_out,
                                     int co_groups) {
    extern __shared__ float smem[];
    const int in_t = CRB_TILE + K - 1;
    float* patch = smem;                  // in_t * in_t
    float* filt = smem + in_t * in_t;     // CRB_COPB * K * K

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int tid = ty * CRB_TILE + tx;
    const int nthreads = CRB_TILE * CRB_TILE;
    const int n = blockIdx.z / co_groups;
    const int co0 = (blockIdx.z % co_groups) * CRB_COPB;
    const int oh0 = blockIdx.y * CRB_TILE;
    const int ow0 = blockIdx.x * CRB_TILE;
    const int oh = oh0 + ty;
    const int ow = ow0 + tx;
    const int kk2 = K * K;

    float acc[CRB_COPB];
    #pragma unroll
    for (int c = 0; c < CRB_COPB; ++c) acc[c] = 0.0f;

    for (int ci = 0; ci < C_in; ++ci) {
        const float* plane = x + ((size_t)n * C_in + ci) * H * W;
        // Patch rows/cols past the input edge only feed outputs past H_out/W_out: fill them with 0.
        for (int e = tid; e < in_t * in_t; e += nthreads) {
            const int r = e / in_t;
            const int c = e % in_t;
            const int gr = oh0 + r;
            const int gc = ow0 + c;
            patch[e] = (gr < H && gc < W) ? plane[(size_t)gr * W + gc] : 0.0f;
        }
        for (int e = tid; e < CRB_COPB * kk2; e += nthreads) {
            const int c = e / kk2;
            const int co = co0 + c;
            filt[e] = (co < C_out) ? w[((size_t)co * C_in + ci) * kk2 + (e % kk2)] : 0.0f;
        }
        __syncthreads();

        for (int kh = 0; kh < K; ++kh) {
            for (int kw = 0; kw < K; ++kw) {
                const float v = patch[(ty + kh) * in_t + (tx + kw)];
                #pragma unroll
                for (int c = 0; c < CRB_COPB; ++c) {
                    acc[c] += v * filt[c * kk2 + kh * K + kw];
                }
            }
        }
        __syncthreads();
    }

    if (oh < H_out && ow < W_out) {
        #pragma unroll
        for (int c = 0; c < CRB_COPB; ++c) {
            const int co = co0 + c;
            if (co < C_out) {
                const float v = acc[c] + conv_bias[co];
                y[(((size_t)n * C_out + co) * H_out + oh) * W_out + ow] = fmaxf(v, 0.0f) + post_bias[co];
            }
        }
    }
}

// ---- host ----
torch::Tensor crb_halo_tile_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor conv_bias,
                                    torch::Tensor bias) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(weight.is_cuda() && conv_bias.is_cuda() && bias.is_cuda(), "parameters must be CUDA tensors");
    TORCH_CHECK(x.is_contiguous() && weight.is_contiguous() && conv_bias.is_contiguous() && bias.is_contiguous(),
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
    TORCH_CHECK(conv_bias.numel() == C_out, "conv bias must have C_out elements");
    TORCH_CHECK(bias.numel() == C_out, "bias must have C_out elements ([C_out, 1, 1])");
    TORCH_CHECK(H >= K && W >= K, "input smaller than the kernel");
    const int H_out = H - K + 1;
    const int W_out = W - K + 1;

    torch::Tensor y = torch::empty({B, C_out, H_out, W_out}, x.options());
    if (y.numel() == 0) return y;

    const int co_groups = (C_out + CRB_COPB - 1) / CRB_COPB;
    TORCH_CHECK((long long)B * co_groups <= 65535, "B * ceil(C_out / 4) exceeds gridDim.z");
    const int in_t = CRB_TILE + K - 1;
    const size_t smem = (size_t)(in_t * in_t + CRB_COPB * K * K) * sizeof(float);
    TORCH_CHECK(smem <= 48 * 1024, "kernel too large for the shared-memory tile");

    const dim3 block(CRB_TILE, CRB_TILE);
    const dim3 grid((W_out + CRB_TILE - 1) / CRB_TILE, (H_out + CRB_TILE - 1) / CRB_TILE, B * co_groups);
    crb_halo_tile_kernel<<<grid, block, smem, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), weight.data_ptr<float>(), conv_bias.data_ptr<float>(), bias.data_ptr<float>(),
        y.data_ptr<float>(), C_in, H, W, C_out, K, H_out, W_out, co_groups);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
