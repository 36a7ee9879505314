#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// Max pooling over the last axis with runtime window, stride, padding and dilation; one thread
// per output element of the flattened [B*C, L_out] output. Padding taps hold -inf in PyTorch,
// so they are skipped rather than read; the running max starts at -inf.
__global__ void maxpool1d_thread_kernel(const float* __restrict__ in, float* __restrict__ out,
                                        long long total, int L, int L_out,
                                        int ks, int stride, int pad, int dil) {
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= total) return;

    const int o = (int)(idx % L_out);
    const long long row = idx / L_out;
    const float* src = in + row * L;
    const int start = o * stride - pad;

    float m = __int_as_float(0xff800000);  // -inf
    for (int j = 0; j < ks; ++j) {
        const int pos = start + j * dil;
        if (pos >= 0 && pos < L) m = fmaxf(m, src[pos]);
    }
    out[idx] = m;
}

// ---- host ----
torch::Tensor maxpool1d_forward(torch::Tensor x, int64_t kernel_size, int64_t stride, int64_t padding,
                                int64_t dilation) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    TORCH_CHECK(x.dim() == 3, "x must be [B, C, L]");
    TORCH_CHECK(kernel_size > 0 && stride > 0 && dilation > 0 && padding >= 0 && 2 * padding <= kernel_size,
                "invalid kernel_size/stride/padding/dilation");

    const int B = (int)x.size(0), C = (int)x.size(1), L = (int)x.size(2);
    const int ks = (int)kernel_size, s = (int)stride, p = (int)padding, d = (int)dilation;
    const int span = d * (ks - 1) + 1;  // the window's extent in input positions
    TORCH_CHECK(L + 2 * p >= span, "padded input shorter than the dilated window");
    const int L_out = (L + 2 * p - span) / s + 1;  // floor mode
    auto out = torch::empty({B, C, L_out}, x.options());

    const long long total = (long long)B * C * L_out;
    if (total == 0) return out;
    const int threads = 256;
    const long long blocks = (total + threads - 1) / threads;
    maxpool1d_thread_kernel<<<(unsigned int)blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), out.data_ptr<float>(), total, L, L_out, ks, s, p, d);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "maxpool1d_thread_kernel launch failed: ", cudaGetErrorString(err));
    return out;
}
