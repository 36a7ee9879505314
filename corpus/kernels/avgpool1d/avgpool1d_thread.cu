#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// Average pooling over the last axis, one thread per output element of the flattened
// [B*C, L_out] output, runtime window/stride/padding. Taps in the padding are zeros: they are
// skipped but still counted, since count_include_pad=True divides by the full window.
__global__ void avgpool1d_thread_kernel(const float* __restrict__ in, float* __restrict__ out,
                                        long long total, int L, int L_out, int ks, int stride, int pad) {
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= total) return;

    const int o = (int)(idx % L_out);
    const long long row = idx / L_out;
    const float* src = in + row * L;
    const int start = o * stride - pad;
    // Clip the window to the row instead of testing every tap.
    const int lo = start < 0 ? 0 : start;
    const int hi = (start + ks < L) ? start + ks : L;  // exclusive

    float sum = 0.0f;
    for (int pos = lo; pos < hi; ++pos) sum += src[pos];
    out[idx] = sum / (float)ks;
}

// ---- host ----
torch::Tensor avgpool1d_forward(torch::Tensor x, int64_t kernel_size, int64_t stride, int64_t padding) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    TORCH_CHECK(x.dim() == 3, "x must be [B, C, L]");
    TORCH_CHECK(kernel_size > 0 && stride > 0 && padding >= 0 && 2 * padding <= kernel_size,
                "invalid kernel_size/stride/padding");

    const int B = (int)x.size(0), C = (int)x.size(1), L = (int)x.size(2);
    const int ks = (int)kernel_size, s = (int)stride, p = (int)padding;
    TORCH_CHECK(L + 2 * p >= ks, "padded input shorter than the window");
    const int L_out = (L + 2 * p - ks) / s + 1;  // floor mode
    auto out = torch::empty({B, C, L_out}, x.options());

    const long long total = (long long)B * C * L_out;
    if (total == 0) return out;
    const int threads = 256;
    const long long blocks = (total + threads - 1) / threads;
    avgpool1d_thread_kernel<<<(unsigned int)blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), out.data_ptr<float>(), total, L, L_out, ks, s, p);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "avgpool1d_thread_kernel launch failed: ", cudaGetErrorString(err));
    return out;
}
