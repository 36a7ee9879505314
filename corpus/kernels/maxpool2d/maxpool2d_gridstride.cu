#include <torch/extension.h>
#include <cuda_runtime.h>

// Grid-stride max pooling with runtime window/stride. Output coordinates are decomposed from a
// flat index; comparisons rather than fmaxf, starting from the window's first element.
__global__ void maxpool2d_gs_kernel(const float* input, float* output,
                                    long long total, int H, int W, int H_out, int W_out,
                                    int ksize, int stride) {
    for (long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x; idx < total;
         idx += (long long)blockDim.x * gridDim.x) {
        long long t = idx;
        const int ow = (int)(t % W_out);
        t /= W_out;
        const int oh = (int)(t % H_out);
        t /= H_out;  // t is now the (n, c) plane index
        const int h0 = oh * stride;
        const int w0 = ow * stride;
        const float* plane = input + t * H * W;

        float best = plane[h0 * W + w0];
        for (int dh = 0; dh < ksize; ++dh) {
            const int h = h0 + dh;
            if (h >= H) break;
            for (int dw = 0; dw < ksize; ++dw) {
                const int w = w0 + dw;
                if (w >= W) break;
                const float v = plane[h * W + w];
                if (v > best) best = v;
            }
        }
        output[idx] = best;
    }
}

// ---- host ----
torch::Tensor max_pool2d_cuda(torch::Tensor input, int kernel_size, int stride) {
    TORCH_CHECK(input.is_cuda(), "input must be a CUDA tensor");
    TORCH_CHECK(input.dim() == 4, "input must be 4-D");
    TORCH_CHECK(kernel_size > 0 && stride > 0, "kernel_size and stride must be positive");
    input = input.contiguous();

    const int N = input.size(0);
    const int C = input.size(1);
    const int H = input.size(2);
    const int W = input.size(3);
    TORCH_CHECK(H >= kernel_size && W >= kernel_size, "input smaller than the pooling window");
    const int H_out = (H - kernel_size) / stride + 1;
    const int W_out = (W - kernel_size) / stride + 1;

    auto output = torch::empty({N, C, H_out, W_out}, input.options());
    const long long total = (long long)N * C * H_out * W_out;
    if (total == 0) return output;

    const int block = 128;
    long long grid = (total + block - 1) / block;
    if (grid > 2048) grid = 2048;
    maxpool2d_gs_kernel<<<(int)grid, block>>>(input.data_ptr<float>(), output.data_ptr<float>(),
                                              total, H, W, H_out, W_out, kernel_size, stride);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "maxpool2d_gs_kernel failed: ", cudaGetErrorString(err));
    return output;
}
