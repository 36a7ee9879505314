#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

// Convolution -> tanh -> * scale -> + bias[c] -> MaxPool2d(P), one thread per POOLED output.
// The thread recomputes the P x P convolution outputs of its window (no padding, stride 1, so
// every tap is inside the input), applies the elementwise tail to each and keeps the running
// max; the unpooled activation is never written. Grid: x over the pooled pixels of one plane,
// y the output channel, z the sample.
__global__ void ctsbm_direct_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                    const float* __restrict__ conv_bias, const float* __restrict__ bias,
                                    float* __restrict__ y,
                                    int C_in, int H, int W, int C_out, int K, int P,
                                    int H_pool, int W_pool, float scale) {
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    const int co = blockIdx.y;
    const int n = blockIdx.z;
    if (p >= H_pool * W_pool) return;
    const int ph = p / W_pool;
    const int pw = p % W_pool;
    const int kk2 = K * K;
    const float cb = conv_bias[co];
    const float b = bias[co];
    const float* wc = w + (size_t)co * C_in * kk2;

    float m = __int_as_float(0xff800000);  // -inf
    // Floor-mode pooling: ph < H_pool means rows ph*P .. ph*P + P - 1 are all below H_out.
    for (int dy = 0; dy < P; ++dy) {
        const int oh = ph * P + dy;
        for (int dx = 0; dx < P; ++dx) {
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
            const float v = tanhf(acc) * scale + b;
            m = fmaxf(m, v);
        }
    }
    y[((size_t)n * C_out + co) * H_pool * W_pool + p] = m;
}

// ---- host ----
torch::Tensor ctsbm_direct_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor conv_bias,
                                   torch::Tensor bias, double scaling_factor, int64_t pool) {
    TORCH_CHECK(x.is_cuda() && weight.is_cuda() && conv_bias.is_cuda() && bias.is_cuda(),
                "tensors must be on CUDA");
    TORCH_CHECK(x.is_contiguous() && weight.is_contiguous() && conv_bias.is_contiguous() && bias.is_contiguous(),
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
    TORCH_CHECK(conv_bias.numel() == C_out && bias.numel() == C_out, "biases must have C_out elements");
    TORCH_CHECK(H >= K && W >= K, "input smaller than the kernel");
    const int H_out = H - K + 1;
    const int W_out = W - K + 1;
    const int H_pool = H_out / P;   // floor mode: a partial window at the edge is dropped
    const int W_pool = W_out / P;
    TORCH_CHECK(H_pool >= 1 && W_pool >= 1, "pooling window larger than the convolution output");
    TORCH_CHECK(C_out <= 65535 && B <= 65535, "C_out and B must fit in gridDim.y / gridDim.z");

    auto y = torch::empty({B, C_out, H_pool, W_pool}, x.options());

    const int threads = 128;
    const dim3 grid((H_pool * W_pool + threads - 1) / threads, C_out, B);
    auto stream = at::cuda::getCurrentCUDAStream();
    ctsbm_direct_kernel<<<grid, threads, 0, stream>>>(
        x.data_ptr<float>(), weight.data_ptr<float>(), conv_bias.data_ptr<float>(), bias.data_ptr<float>(),
        y.data_ptr<float>(), C_in, H, W, C_out, K, P, H_pool, W_pool, (float)scaling_factor);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
