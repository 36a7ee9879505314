#include <torch/extension.h>
#include <cuda_runtime.h>

// y[b, o] = relu(bias[o] + sum_k x[b, k] * w[o, k]), one thread per output element.
__global__ void linear_relu_naive_kernel(const float* x, const float* w, const float* bias, float* y,
                                         int batch, int in_features, int out_features) {
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y * blockDim.y + threadIdx.y;
    if (b < batch && o < out_features) {
        const float* xrow = x + (size_t)b * in_features;
        const float* wrow = w + (size_t)o * in_features;
        float sum = bias[o];
        for (int k = 0; k < in_features; ++k) {
            sum += xrow[k] * wrow[k];
        }
        y[(size_t)b * out_features + o] = sum > 0.0f ? sum : 0.0f;
    }
}

// ---- host ----
torch::Tensor linear_relu_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias) {
    TORCH_CHECK(x.is_cuda() && weight.is_cuda() && bias.is_cuda(), "all inputs must be CUDA tensors");
    TORCH_CHECK(x.is_contiguous() && weight.is_contiguous() && bias.is_contiguous(), "inputs must be contiguous");
    TORCH_CHECK(x.dim() == 2 && weight.dim() == 2, "x is [B, K], weight is [N, K]");
    TORCH_CHECK(weight.size(1) == x.size(1), "in_features mismatch");
    TORCH_CHECK(bias.numel() == weight.size(0), "bias must have N elements");

    int batch = x.size(0);
    int in_features = x.size(1);
    int out_features = weight.size(0);
    auto y = torch::empty({batch, out_features}, x.options());

    dim3 block(32, 8);
    dim3 grid((out_features + block.x - 1) / block.x, (batch + block.y - 1) / block.y);
    linear_relu_naive_kernel<<<grid, block>>>(x.data_ptr<float>(), weight.data_ptr<float>(), bias.data_ptr<float>(),
                                              y.data_ptr<float>(), batch, in_features, out_features);
    return y;
}
