#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

constexpr int LR_TILE = 16;

// Tiled y = relu(x W^T + b). The block owns a LR_TILE x LR_TILE tile of y (rows: samples,
// columns: output features). Both operand tiles are loaded along K (coalesced) into shared
// memory; the W tile is padded so reading it by column is conflict-free.
__global__ void linear_relu_tiled_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                         const float* __restrict__ bias, float* __restrict__ y,
                                         int B, int K, int N) {
    __shared__ float xs[LR_TILE][LR_TILE];
    __shared__ float ws[LR_TILE][LR_TILE + 1];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int b = blockIdx.y * LR_TILE + ty;   // sample of this thread's output
    const int n = blockIdx.x * LR_TILE + tx;   // output feature of this thread's output
    const int w_row = blockIdx.x * LR_TILE + ty;  // W row this thread loads

    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += LR_TILE) {
        const int k = k0 + tx;
        xs[ty][tx] = (b < B && k < K) ? x[(size_t)b * K + k] : 0.0f;
        ws[ty][tx] = (w_row < N && k < K) ? w[(size_t)w_row * K + k] : 0.0f;
        __syncthreads();
        #pragma unroll
        for (int kk = 0; kk < LR_TILE; ++kk) {
            acc += xs[ty][kk] * ws[tx][kk];
        }
        __syncthreads();
    }

    if (b < B && n < N) {
        const float v = acc + bias[n];
        y[(size_t)b * N + n] = fmaxf(v, 0.0f);
    }
}

// ---- host ----
torch::Tensor linear_relu_tiled(torch::Tensor x, torch::Tensor weight, torch::Tensor bias) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(weight.is_cuda(), "weight must be a CUDA tensor");
    TORCH_CHECK(bias.is_cuda(), "bias must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous() && weight.is_contiguous() && bias.is_contiguous(), "contiguous inputs required");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "float32 only");

    const int B = x.size(0);
    const int K = x.size(1);
    const int N = weight.size(0);
    TORCH_CHECK(weight.size(1) == K, "weight must be [N, K]");

    auto y = torch::empty({B, N}, x.options());
    if (B == 0 || N == 0) return y;

    const dim3 block(LR_TILE, LR_TILE);
    const dim3 grid((N + LR_TILE - 1) / LR_TILE, (B + LR_TILE - 1) / LR_TILE);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    linear_relu_tiled_kernel<<<grid, block, 0, stream>>>(
        x.data_ptr<float>(), weight.data_ptr<float>(), bias.data_ptr<float>(), y.data_ptr<float>(), B, K, N);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
