#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

// Transposed 2-D convolution in gather form: one thread per output element (n, co, oh, ow) sums
// x[n, ci, ih, iw] * w[ci, co, kh, kw] over the inputs that the forward scatter would send there,
// i.e. oh = ih * S - P + kh; a tap contributes only when oh + P - kh is a non-negative multiple
// of S whose quotient lies inside the input (no atomics: each output is written once).
__global__ void ct2d_gather_direct_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                          float* __restrict__ y,
                                          int C_in, int H, int W, int C_out, int K,
                                          int S, int P, int H_out, int W_out, long long total) {
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= total) return;

    const int ow = (int)(idx % W_out);
    const int oh = (int)((idx / W_out) % H_out);
    const int co = (int)((idx / ((long long)W_out * H_out)) % C_out);
    const int n = (int)(idx / ((long long)W_out * H_out * C_out));

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        const float* plane = x + ((size_t)n * C_in + ci) * H * W;
        const float* wk = w + ((size_t)ci * C_out + co) * K * K;
        for (int kh = 0; kh < K; ++kh) {
            const int th = oh + P - kh;
            if (th < 0 || th % S != 0) continue;
            const int ih = th / S;
            if (ih >= H) continue;
            for (int kw = 0; kw < K; ++kw) {
                const int tw = ow + P - kw;
                if (tw < 0 || tw % S != 0) continue;
                const int iw = tw / S;
                if (iw >= W) continue;
                acc += plane[ih * W + iw] * wk[kh * K + kw];
            }
        }
    }
    y[idx] = acc;
}

// ---- host ----
torch::Tensor ct2d_gather_direct_forward(torch::Tensor x, torch::Tensor weight,
                                         int64_t stride, int64_t padding, int64_t output_padding) {
    TORCH_CHECK(x.is_cuda() && weight.is_cuda(), "tensors must be on CUDA");
    TORCH_CHECK(x.is_contiguous() && weight.is_contiguous(), "contiguous tensors required");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "float32 only");
    TORCH_CHECK(x.dim() == 4 && weight.dim() == 4, "expected NCHW input and [C_in, C_out, K, K] weight");
    TORCH_CHECK(weight.size(0) == x.size(1), "weight must have C_in as its first dim");
    TORCH_CHECK(weight.size(2) == weight.size(3), "square kernels only");
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
    const int H_out = (H - 1) * S - 2 * P + K + (int)output_padding;
    const int W_out = (W - 1) * S - 2 * P + K + (int)output_padding;
    TORCH_CHECK(H_out > 0 && W_out > 0, "output would be empty");

    auto y = torch::empty({B, C_out, H_out, W_out}, x.options());
    const long long total = (long long)B * C_out * H_out * W_out;
    if (total == 0) return y;

    const int threads = 256;
    const long long blocks = (total + threads - 1) / threads;
    auto stream = at::cuda::getCurrentCUDAStream();
    ct2d_gather_direct_kernel<<<(unsigned int)blocks, threads, 0, stream>>>(
        x.data_ptr<float>(), weight.data_ptr<float>(), y.data_ptr<float>(),
        C_in, H, W, C_out, K, S, P, H_out, W_out, total);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
