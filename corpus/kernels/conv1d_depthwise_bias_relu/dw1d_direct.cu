#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

// Depthwise 1-D convolution + bias + ReLU, one thread per output element (n, c, t) in a
// flattened grid-stride loop; each thread walks its channel's K taps with zero-padding checks.
__global__ void dw1d_direct_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                   const float* __restrict__ bias, float* __restrict__ y,
                                   int C, int L, int K, int pad, int L_out, long long total) {
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x; idx < total; idx += step) {
        const int t = (int)(idx % L_out);
        const long long row = idx / L_out;          // n * C + c
        const int c = (int)(row % C);
        const float* xr = x + row * L;
        const float* wc = w + (size_t)c * K;
        float acc = bias[c];
        const int t0 = t - pad;
        for (int k = 0; k < K; ++k) {
            const int i = t0 + k;
            if (i >= 0 && i < L) acc += xr[i] * wc[k];
        }
        y[idx] = fmaxf(acc, 0.0f);
    }
}

// ---- host ----
torch::Tensor dw1d_direct_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias) {
    TORCH_CHECK(x.is_cuda() && weight.is_cuda() && bias.is_cuda(), "tensors must be on CUDA");
    TORCH_CHECK(x.is_contiguous() && weight.is_contiguous() && bias.is_contiguous(), "contiguous tensors required");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "float32 only");
    TORCH_CHECK(x.dim() == 3, "x must be [B, C, L]");
    TORCH_CHECK(weight.dim() == 3 && weight.size(0) == x.size(1) && weight.size(1) == 1,
                "weight must be [C, 1, K] (depthwise)");
    TORCH_CHECK(bias.numel() == x.size(1), "bias must have C elements");

    const int B = (int)x.size(0);
    const int C = (int)x.size(1);
    const int L = (int)x.size(2);
    const int K = (int)weight.size(2);
    const int pad = K / 2;
    const int L_out = L + 2 * pad - K + 1;
    TORCH_CHECK(L_out > 0, "output would be empty");

    auto y = torch::empty({B, C, L_out}, x.options());
    const long long total = (long long)B * C * L_out;
    if (total == 0) return y;

    const int threads = 256;
    long long blocks = (total + threads - 1) / threads;
    if (blocks > 65535LL * 16) blocks = 65535LL * 16;   // grid-stride loop covers the rest
    auto stream = at::cuda::getCurrentCUDAStream();
    dw1d_direct_kernel<<<(unsigned int)blocks, threads, 0, stream>>>(
        x.data_ptr<float>(), weight.data_ptr<float>(), bias.data_ptr<float>(), y.data_ptr<float>(),
        C, L, K, pad, L_out, total);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
