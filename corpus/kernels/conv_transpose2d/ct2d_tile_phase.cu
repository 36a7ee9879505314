#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

#define CT_TILE 16    // the block is CT_TILE x CT_TILE threads, one output pixel each
#define CT_COB 4      // output channels per block
#define CT_CIC 8      // input channels whose weights are staged per step

// Transposed 2-D convolution, gather form with an output tile per block. A 16 x 16 block computes
// a 16 x 16 output tile for CT_COB output channels of one sample (register accumulators). Per
// step it stages w[ci, co0 .. co0 + CT_COB, :, :] for CT_CIC input channels in dynamic shared
// memory. Instead of testing every tap for divisibility, each output visits only its own stride
// phase: kh = (oh + P) mod S, kh + S, ... so ih = (oh + P - kh) / S is exact.
// Dynamic shared memory: wt [CT_CIC][CT_COB][K][K].
__global__ void ct2d_tile_phase_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                       float* __restrict__ y,
                                       int C_in, int H, int W, int C_out, int K, int S, int P,
                                       int H_out, int W_out, int co_blocks) {
    extern __shared__ float wt[];
    const int kk = K * K;
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int tid = ty * CT_TILE + tx;
    const int n = blockIdx.z / co_blocks;
    const int co0 = (blockIdx.z % co_blocks) * CT_COB;
    const int oh = blockIdx.y * CT_TILE + ty;
    const int ow = blockIdx.x * CT_TILE + tx;
    const bool active = oh < H_out && ow < W_out;

    // This output's first tap in each direction and the input row / column it reads.
    const int kh0 = (oh + P) % S;
    const int kw0 = (ow + P) % S;

    float acc[CT_COB];
    #pragma unroll
    for (int c = 0; c < CT_COB; ++c) acc[c] = 0.0f;

    for (int ci0 = 0; ci0 < C_in; ci0 += CT_CIC) {
        const int nstage = CT_CIC * CT_COB * kk;
        for (int e = tid; e < nstage; e += CT_TILE * CT_TILE) {
            const int j = e / (CT_COB * kk);
            const int c = (e / kk) % CT_COB;
            const int ci = ci0 + j;
            const int co = co0 + c;
            wt[e] = (ci < C_in && co < C_out) ? w[((size_t)ci * C_out + co) * kk + (e % kk)] : 0.0f;
        }
        __syncthreads();

        if (active) {
            const int jn = min(CT_CIC, C_in - ci0);
            for (int j = 0; j < jn; ++j) {
                const float* plane = x + ((size_t)n * C_in + ci0 + j) * H * W;
                const float* wj = wt + j * CT_COB * kk;
                for (int kh = kh0; kh < K; kh += S) {
                    const int ih = (oh + P - kh) / S;
                    if (ih < 0 || ih >= H) continue;
                    for (int kw = kw0; kw < K; kw += S) {
                        const int iw = (ow + P - kw) / S;
                        if (iw < 0 || iw >= W) continue;
                        const float v = plane[ih * W + iw];
                        #pragma unroll
                        for (int c = 0; c < CT_COB; ++c) {
                            acc[c] += v * wj[c * kk + kh * K + kw];
                        }
                    }
                }
            }
        }
        __syncthreads();
    }

    if (active) {
        #pragma unroll
        for (int c = 0; c < CT_COB; ++c) {
            const int co = co0 + c;
            if (co < C_out) {
                y[(((size_t)n * C_out + co) * H_out + oh) * W_out + ow] = acc[c];
            }
        }
    }
}

// ---- host ----
torch::Tensor ct2d_tile_phase_forward(torch::Tensor x, torch::Tensor weight,
                                      int64_t stride, int64_t padding, int64_t output_padding) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(weight.is_cuda(), "weight must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous() && weight.is_contiguous(), "contiguous tensors required");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "float32 only");
    TORCH_CHECK(x.dim() == 4 && weight.dim() == 4, "expected NCHW input and [C_in, C_out, K, K] weight");
    TORCH_CHECK(weight.size(0) == x.size(1) && weight.size(2) == weight.size(3),
                "weight must be [C_in, C_out, K, K]");
    TORCH_CHECK(stride >= 1 && padding >= 0 && output_padding >= 0 && output_padding < stride,
                "need stride >= 1, padding >= 0, 0 <= output_padding < stride");

    const int B = (int)x.size(0);
    const int C_in = (int)x.size(1);
    const int H = (int)x.size(2);
    const int W = (int)x.size(3);
    const int C_out = (int)weight.size(1);
    const int K = (int)weight.size(2);
    const int S = (int)stride;
    const int P = (int)padding;
    const int OP = (int)output_padding;
    const int H_out = (H - 1) * S - 2 * P + K + OP;
    const int W_out = (W - 1) * S - 2 * P + K + OP;
    TORCH_CHECK(H_out > 0 && W_out > 0, "output would be empty");

    const int co_blocks = (C_out + CT_COB - 1) / CT_COB;
    TORCH_CHECK((long long)B * co_blocks <= 65535, "B * ceil(C_out / 4) exceeds gridDim.z");
    const size_t smem = (size_t)CT_CIC * CT_COB * K * K * sizeof(float);
    TORCH_CHECK(smem <= 48 * 1024, "kernel too large for the shared weight tile");

    torch::Tensor y = torch::empty({B, C_out, H_out, W_out}, x.options());
    if (y.numel() == 0) return y;

    const dim3 block(CT_TILE, CT_TILE);
    const dim3 grid((W_out + CT_TILE - 1) / CT_TILE, (H_out + CT_TILE - 1) / CT_TILE, B * co_blocks);
    auto stream = at::cuda::getCurrentCUDAStream();
    ct2d_tile_phase_kernel<<<grid, block, smem, stream>>>(
        x.data_ptr<float>(), weight.data_ptr<float>(), y.data_ptr<float>(),
        C_in, H, W, C_out, K, S, P, H_out, W_out, co_blocks);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
