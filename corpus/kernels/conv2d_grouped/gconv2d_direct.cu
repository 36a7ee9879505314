#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

// Grouped 2-D convolution, one thread per output element (n, co, oh, ow): the thread finds its
// group g = co / (C_out / G) and sums over that group's C_in / G input channels only.
__global__ void gconv2d_direct_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                      const float* __restrict__ bias, float* __restrict__ y,
                                      int C_in, int H, int W, int C_out, int G,
                                      int KH, int KW, int pad_h, int pad_w,
                                      int H_out, int W_out, long long total) {
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= total) return;

    const int ow = (int)(idx % W_out);
    const int oh = (int)((idx / W_out) % H_out);
    const int co = (int)((idx / ((long long)W_out * H_out)) % C_out);
    const int n = (int)(idx / ((long long)W_out * H_out * C_out));

    const int cin_g = C_in / G;
    const int cout_g = C_out / G;
    const int g = co / cout_g;
    const int ci0 = g * cin_g;                 // first input channel of the group

    float acc = bias[co];
    for (int j = 0; j < cin_g; ++j) {
        const float* plane = x + ((size_t)n * C_in + ci0 + j) * H * W;
        const float* wk = w + ((size_t)co * cin_g + j) * KH * KW;
        for (int kh = 0; kh < KH; ++kh) {
            const int ih = oh - pad_h + kh;
            if (ih < 0 || ih >= H) continue;
            for (int kw = 0; kw < KW; ++kw) {
                const int iw = ow - pad_w + kw;
                if (iw < 0 || iw >= W) continue;
                acc += plane[ih * W + iw] * wk[kh * KW + kw];
            }
        }
    }
    y[idx] = acc;
}

// ---- host ----
torch::Tensor gconv2d_direct_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias,
                                     int64_t groups, int64_t pad_h, int64_t pad_w) {
    TORCH_CHECK(x.is_cuda() && weight.is_cuda() && bias.is_cuda(), "tensors must be on CUDA");
    TORCH_CHECK(x.is_contiguous() && weight.is_contiguous() && bias.is_contiguous(), "contiguous tensors required");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "float32 only");
    TORCH_CHECK(x.dim() == 4 && weight.dim() == 4, "expected NCHW input and [C_out, C_in/G, KH, KW] weight");
    TORCH_CHECK(groups >= 1 && pad_h >= 0 && pad_w >= 0, "bad groups/padding");

    const int B = (int)x.size(0);
    const int C_in = (int)x.size(1);
    const int H = (int)x.size(2);
    const int W = (int)x.size(3);
    const int C_out = (int)weight.size(0);
    const int G = (int)groups;
    const int KH = (int)weight.size(2);
    const int KW = (int)weight.size(3);
    TORCH_CHECK(C_in % G == 0 && C_out % G == 0, "channels must be multiples of groups");
    TORCH_CHECK(weight.size(1) == C_in / G, "weight must have C_in / groups input channels");
    TORCH_CHECK(bias.numel() == C_out, "bias must have C_out elements");
    const int H_out = H + 2 * (int)pad_h - KH + 1;
    const int W_out = W + 2 * (int)pad_w - KW + 1;
    TORCH_CHECK(H_out > 0 && W_out > 0, "output would be empty");

    auto y = torch::empty({B, C_out, H_out, W_out}, x.options());
    const long long total = (long long)B * C_out * H_out * W_out;
    if (total == 0) return y;

    const int threads = 256;
    const long long blocks = (total + threads - 1) / threads;
    auto stream = at::cuda::getCurrentCUDAStream();
    gconv2d_direct_kernel<<<(unsigned int)blocks, threads, 0, stream>>>(
        x.data_ptr<float>(), weight.data_ptr<float>(), bias.data_ptr<float>(), y.data_ptr<float>(),
        C_in, H, W, C_out, G, KH, KW, (int)pad_h, (int)pad_w, H_out, W_out, total);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
