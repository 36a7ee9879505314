#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

// Direct convolution: one thread per output element (n, co, oh, ow), NCHW layout,
// square kernel K, symmetric stride and zero padding, optional bias.
__global__ void conv2d_direct_kernel(const float* __restrict__ input,
                                     const float* __restrict__ weight,
                                     const float* __restrict__ bias,
                                     float* __restrict__ output,
                                     int N, int C_in, int H, int W,
                                     int C_out, int K, int stride, int pad,
                                     int H_out, int W_out) {
    const long long total = (long long)N * C_out * H_out * W_out;
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= total) return;  // no barriers in this kernel

    const int ow = (int)(idx % W_out);
    const int oh = (int)((idx / W_out) % H_out);
    const int co = (int)((idx / ((long long)W_out * H_out)) % C_out);
    const int n = (int)(idx / ((long long)W_out * H_out * C_out));

    float acc = (bias != nullptr) ? bias[co] : 0.0f;
    const int ih0 = oh * stride - pad;
    const int iw0 = ow * stride - pad;
    for (int ci = 0; ci < C_in; ++ci) {
        const float* in_c = input + ((size_t)n * C_in + ci) * H * W;
        const float* w_c = weight + ((size_t)co * C_in + ci) * K * K;
        for (int kh = 0; kh < K; ++kh) {
            const int ih = ih0 + kh;
            if (ih < 0 || ih >= H) continue;
            for (int kw = 0; kw < K; ++kw) {
                const int iw = iw0 + kw;
                if (iw < 0 || iw >= W) continue;
                acc += in_c[ih * W + iw] * w_c[kh * K + kw];
            }
        }
    }
    output[idx] = acc;
}

// ---- host ----
torch::Tensor conv2d_forward(torch::Tensor input, torch::Tensor weight, torch::Tensor bias,
                             int64_t stride, int64_t padding) {
    TORCH_CHECK(input.is_cuda() && weight.is_cuda() && bias.is_cuda(), "tensors must be on CUDA");
    TORCH_CHECK(input.is_contiguous() && weight.is_contiguous(), "input and weight must be contiguous");
    TORCH_CHECK(input.dim() == 4 && weight.dim() == 4, "expected NCHW input and OIHW weight");
    TORCH_CHECK(weight.size(2) == weight.size(3), "square kernels only");
    TORCH_CHECK(weight.size(1) == input.size(1), "channel mismatch");
    TORCH_CHECK(stride >= 1 && padding >= 0, "bad stride/padding");

    const int N = input.size(0);
    const int C_in = input.size(1);
    const int H = input.size(2);
    const int W = input.size(3);
    const int C_out = weight.size(0);
    const int K = weight.size(2);
    const int H_out = (H + 2 * (int)padding - K) / (int)stride + 1;
    const int W_out = (W + 2 * (int)padding - K) / (int)stride + 1;
    TORCH_CHECK(H_out > 0 && W_out > 0, "output would be empty");
    TORCH_CHECK(bias.numel() == C_out, "bias must have C_out elements");

    auto output = torch::empty({N, C_out, H_out, W_out}, input.options());
    const long long total = (long long)N * C_out * H_out * W_out;
    if (total == 0) return output;

    const int threads = 256;
    const long long blocks = (total + threads - 1) / threads;
    auto stream = at::cuda::getCurrentCUDAStream();
    conv2d_direct_kernel<<<(unsigned int)blocks, threads, 0, stream>>>(
        input.data_ptr<float>(), weight.data_ptr<float>(), bias.data_ptr<float>(), output.data_ptr<float>(),
        N, C_in, H, W, C_out, K, (int)stride, (int)padding, H_out, W_out);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return output;
}
