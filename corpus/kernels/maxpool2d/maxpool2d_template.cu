#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

// Max pooling with the window and stride as template parameters (fully unrolled window).
// One thread per output element of the flattened [N*C, H_out, W_out] output.
template <int KS, int STRIDE>
__global__ void maxpool2d_kernel(const float* __restrict__ in, float* __restrict__ out,
                                 int planes, int H, int W, int H_out, int W_out) {
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    const int total = planes * H_out * W_out;
    if (idx < total) {
        const int ow = idx % W_out;
        const int oh = (idx / W_out) % H_out;
        const int p = idx / (W_out * H_out);
        const float* src = in + (size_t)p * H * W + (oh * STRIDE) * W + ow * STRIDE;
        float m = src[0];
        #pragma unroll
        for (int i = 0; i < KS; ++i) {
            #pragma unroll
            for (int j = 0; j < KS; ++j) {
                m = fmaxf(m, src[i * W + j]);
            }
        }
        out[idx] = m;
    }
}

// ---- host ----
torch::Tensor maxpool2d_forward(torch::Tensor x, int64_t kernel_size, int64_t stride) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous (NCHW)");
    TORCH_CHECK(x.dim() == 4, "x must be [B, C, H, W]");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");

    const int B = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
    TORCH_CHECK(H >= kernel_size && W >= kernel_size, "input smaller than the window");
    const int H_out = (H - (int)kernel_size) / (int)stride + 1;
    const int W_out = (W - (int)kernel_size) / (int)stride + 1;
    auto out = torch::empty({B, C, H_out, W_out}, x.options());

    const int planes = B * C;
    const int total = planes * H_out * W_out;
    if (total == 0) return out;
    const int threads = 256;
    const int blocks = (total + threads - 1) / threads;
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();

    if (kernel_size == 2 && stride == 2) {
        maxpool2d_kernel<2, 2><<<blocks, threads, 0, stream>>>(x.data_ptr<float>(), out.data_ptr<float>(), planes, H, W, H_out, W_out);
    } else if (kernel_size == 3 && stride == 2) {
        maxpool2d_kernel<3, 2><<<blocks, threads, 0, stream>>>(x.data_ptr<float>(), out.data_ptr<float>(), planes, H, W, H_out, W_out);
    } else if (kernel_size == 3 && stride == 1) {
        maxpool2d_kernel<3, 1><<<blocks, threads, 0, stream>>>(x.data_ptr<float>(), out.data_ptr<float>(), planes, H, W, H_out, W_out);
    } else {
        TORCH_CHECK(false, "unsupported kernel_size/stride combination");
    }
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}
