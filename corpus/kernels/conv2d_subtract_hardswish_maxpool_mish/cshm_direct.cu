#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

// PyTorch's HardSwish: x * relu6(x + 3) / 6.
__device__ __forceinline__ float hardswish_f(float v) {
    return v * fminf(fmaxf(v + 3.0f, 0.0f), 6.0f) / 6.0f;
}

// Mish = x * tanh(softplus(x)); softplus returns x itself above 20 as torch's does (there
// log1p(exp(x)) equals x to float precision anyway, and expf would overflow past ~88).
__device__ __forceinline__ float mish_f(float v) {
    const float sp = (v > 20.0f) ? v : log1pf(expf(v));
    return v * tanhf(sp);
}

// conv -> - sub -> HardSwish -> MaxPool2d(P) -> Mish, one thread per pooled output over a flat
// 1-D grid (index = ((n * C_out + co) * H_pool + ph) * W_pool + pw, 64-bit). Each thread
// recomputes the P x P convolution outputs of its window; Mish runs once, on the max.
__global__ void cshm_direct_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                   const float* __restrict__ conv_bias, float* __restrict__ y,
                                   long long total, int C_in, int H, int W, int C_out, int K, int P,
                                   int H_pool, int W_pool, float sub) {
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= total) return;
    const int pw = (int)(idx % W_pool);
    const int ph = (int)((idx / W_pool) % H_pool);
    const int co = (int)((idx / ((long long)W_pool * H_pool)) % C_out);
    const int n = (int)(idx / ((long long)W_pool * H_pool * C_out));
    const int kk2 = K * K;
    const float* wc = w + (size_t)co * C_in * kk2;
    const float cb = conv_bias[co];

    float m = __int_as_float(0xff800000);  // -inf
    for (int dy = 0; dy < P; ++dy) {
        for (int dx = 0; dx < P; ++dx) {
            const int oh = ph * P + dy;
            const int ow = pw * P + dx;
            float acc = cb;
            for (int ci = 0; ci < C_in; ++ci) {
                const float* xin = x + (((size_t)n * C_in + ci) * H + oh) * W + ow;
                const float* wk = wc + ci * kk2;
                for (int kh = 0; kh < K; ++kh) {
                    for (int kw = 0; kw < K; ++kw) {
                        acc += xin[kh * W + kw] * wk[kh * K + kw];
                    }
                }
            }
            m = fmaxf(m, hardswish_f(acc - sub));
        }
    }
    y[idx] = mish_f(m);
}

// ---- host ----
torch::Tensor cshm_direct_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor conv_bias,
                                  double subtract_value, int64_t pool) {
    TORCH_CHECK(x.is_cuda() && weight.is_cuda() && conv_bias.is_cuda(), "tensors must be on CUDA");
    TORCH_CHECK(x.is_contiguous() && weight.is_contiguous() && conv_bias.is_contiguous(),
                "tensors must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "float32 only");
    TORCH_CHECK(x.dim() == 4 && weight.dim() == 4, "expected NCHW input and OIHW weight");
    TORCH_CHECK(weight.size(1) == x.size(1), "channel mismatch");
    TORCH_CHECK(weight.size(2) == weight.size(3), "square kernels only");
    TORCH_CHECK(pool >= 1, "pool size must be positive");

    const int B = (int)x.size(0);
    const int C_in = (int)x.size(1);
    const int H = (int)x.size(2);
    const int W = (int)x.size(3);
    const int C_out = (int)weight.size(0);
    const int K = (int)weight.size(2);
    const int P = (int)pool;
    TORCH_CHECK(conv_bias.numel() == C_out, "conv bias must have C_out elements");
    TORCH_CHECK(H >= K && W >= K, "input smaller than the kernel");
    const int H_pool = (H - K + 1) / P;
    const int W_pool = (W - K + 1) / P;
    TORCH_CHECK(H_pool >= 1 && W_pool >= 1, "pooling window larger than the convolution output");

    auto y = torch::empty({B, C_out, H_pool, W_pool}, x.options());
    const long long total = y.numel();

    const int threads = 256;
    const long long blocks = (total + threads - 1) / threads;
    cshm_direct_kernel<<<(unsigned int)blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), weight.data_ptr<float>(), conv_bias.data_ptr<float>(), y.data_ptr<float>(),
        total, C_in, H, W, C_out, K, P, H_pool, W_pool, (float)subtract_value);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
