#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

#define GC_PIX 128     // output pixels (and threads) per block
#define GC_COB 8       // output channels per block, all in one group
#define GC_CIC 4       // input channels staged per step

// Grouped 'same' convolution with a shared-memory filter tile. A block computes GC_PIX output
// pixels of one sample for GC_COB output channels of one group (register accumulators, one per
// channel). It walks the group's input channels GC_CIC at a time, staging those channels'
// KH x KW filters for its GC_COB output channels in shared memory, so every input value a
// thread loads is reused for GC_COB outputs.
template <int KH, int KW>
__global__ void gconv2d_smem_filter_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                           const float* __restrict__ bias, float* __restrict__ y,
                                           int C_in, int H, int W, int C_out,
                                           int cin_g, int cout_g, int co_blocks) {
    constexpr int KK = KH * KW;
    constexpr int PH = KH / 2;
    constexpr int PW = KW / 2;
    __shared__ float filt[GC_COB * GC_CIC * KK];    // [c][j][kh][kw]

    const int tid = threadIdx.x;
    const int g = blockIdx.y / co_blocks;
    const int cb = (blockIdx.y % co_blocks) * GC_COB;   // offset of the channel block in the group
    const int n = blockIdx.z;
    const int p = blockIdx.x * GC_PIX + tid;
    const bool active = p < H * W;
    const int oh = active ? p / W : 0;
    const int ow = active ? p % W : 0;

    float acc[GC_COB];
    #pragma unroll
    for (int c = 0; c < GC_COB; ++c) acc[c] = 0.0f;

    for (int j0 = 0; j0 < cin_g; j0 += GC_CIC) {
        for (int e = tid; e < GC_COB * GC_CIC * KK; e += GC_PIX) {
            const int c = e / (GC_CIC * KK);
            const int j = (e / KK) % GC_CIC;
            const int co_in_g = cb + c;
            const int jj = j0 + j;
            float v = 0.0f;
            if (co_in_g < cout_g && jj < cin_g) {
                const int co = g * cout_g + co_in_g;
                v = w[((size_t)co * cin_g + jj) * KK + (e % KK)];
            }
            filt[e] = v;
        }
        __syncthreads();

        if (active) {
            const int jn = min(GC_CIC, cin_g - j0);
            for (int j = 0; j < jn; ++j) {
                const float* plane = x + ((size_t)n * C_in + g * cin_g + j0 + j) * H * W;
                #pragma unroll
                for (int kh = 0; kh < KH; ++kh) {
                    const int ih = oh + kh - PH;
                    if (ih < 0 || ih >= H) continue;
                    #pragma unroll
                    for (int kw = 0; kw < KW; ++kw) {
                        const int iw = ow + kw - PW;
                        if (iw < 0 || iw >= W) continue;
                        const float v = plane[ih * W + iw];
                        #pragma unroll
                        for (int c = 0; c < GC_COB; ++c) {
                            acc[c] += v * filt[(c * GC_CIC + j) * KK + kh * KW + kw];
                        }
                    }
                }
            }
        }
        __syncthreads();
    }

    if (active) {
        #pragma unroll
        for (int c = 0; c < GC_COB; ++c) {
            const int co_in_g = cb + c;
            if (co_in_g < cout_g) {
                const int co = g * cout_g + co_in_g;
                y[((size_t)n * C_out + co) * H * W + p] = acc[c] + bias[co];
            }
        }
    }
}

// ---- host ----
torch::Tensor gconv2d_smem_filter_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(weight.is_cuda() && bias.is_cuda(), "weight and bias must be CUDA tensors");
    TORCH_CHECK(x.is_contiguous() && weight.is_contiguous() && bias.is_contiguous(), "contiguous tensors required");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "float32 only");
    TORCH_CHECK(x.dim() == 4 && weight.dim() == 4, "expected NCHW input and [C_out, C_in/G, KH, KW] weight");
    TORCH_CHECK(weight.size(2) == 3 && weight.size(3) == 5, "this kernel is specialised for 3 x 5 filters, padding (1, 2)");

    const int B = (int)x.size(0);
    const int C_in = (int)x.size(1);
    const int H = (int)x.size(2);
    const int W = (int)x.size(3);
    const int C_out = (int)weight.size(0);
    const int cin_g = (int)weight.size(1);
    TORCH_CHECK(cin_g > 0 && C_in % cin_g == 0, "C_in must be a multiple of the weight's input channels");
    const int G = C_in / cin_g;                  // groups, read off the weight's shape
    TORCH_CHECK(C_out % G == 0, "C_out must be a multiple of groups");
    TORCH_CHECK(bias.numel() == C_out, "bias must have C_out elements");
    const int cout_g = C_out / G;
    const int co_blocks = (cout_g + GC_COB - 1) / GC_COB;
    TORCH_CHECK((long long)G * co_blocks <= 65535 && B <= 65535, "grid too large");

    torch::Tensor y = torch::empty({B, C_out, H, W}, x.options());
    if (y.numel() == 0) return y;

    const dim3 grid((H * W + GC_PIX - 1) / GC_PIX, G * co_blocks, B);
    auto stream = at::cuda::getCurrentCUDAStream();
    gconv2d_smem_filter_kernel<3, 5><<<grid, GC_PIX, 0, stream>>>(
        x.data_ptr<float>(), weight.data_ptr<float>(), bias.data_ptr<float>(), y.data_ptr<float>(),
        C_in, H, W, C_out, cin_g, cout_g, co_blocks);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
