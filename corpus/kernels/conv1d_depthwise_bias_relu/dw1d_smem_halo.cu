#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

#define DW_TILE 128   // outputs (and threads) per block

// Depthwise 1-D convolution + bias + ReLU with a shared-memory row tile. A block owns DW_TILE
// consecutive outputs of one (n, c) row: it stages the DW_TILE + K - 1 input values they read
// (the halo zero-filled where it falls in the padding) and the channel's K taps in dynamic
// shared memory, then each thread convolves from shared memory.
// Dynamic shared memory: tile [DW_TILE + K - 1] | taps [K].
__global__ void dw1d_smem_halo_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                      const float* __restrict__ bias, float* __restrict__ y,
                                      int C, int L, int K, int pad, int L_out) {
    extern __shared__ float smem[];
    const int span = DW_TILE + K - 1;
    float* tile = smem;
    float* taps = smem + span;

    const int c = blockIdx.y;
    const int n = blockIdx.z;
    const size_t row = (size_t)n * C + c;
    const int t0 = blockIdx.x * DW_TILE;       // first output of the tile
    const int in0 = t0 - pad;                  // input index feeding tile[0]
    const float* xr = x + row * L;

    for (int e = threadIdx.x; e < span; e += blockDim.x) {
        const int i = in0 + e;
        tile[e] = (i >= 0 && i < L) ? xr[i] : 0.0f;
    }
    for (int k = threadIdx.x; k < K; k += blockDim.x) {
        taps[k] = w[(size_t)c * K + k];
    }
    __syncthreads();

    const int t = t0 + threadIdx.x;
    if (t < L_out) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) {
            acc += tile[threadIdx.x + k] * taps[k];
        }
        acc += bias[c];
        y[row * L_out + t] = acc > 0.0f ? acc : 0.0f;
    }
}

// ---- host ----
torch::Tensor dw1d_smem_halo_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(weight.is_cuda() && bias.is_cuda(), "weight and bias must be CUDA tensors");
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
    TORCH_CHECK(C <= 65535 && B <= 65535, "C and B must fit in gridDim.y / gridDim.z");

    torch::Tensor y = torch::empty({B, C, L_out}, x.options());
    if (B == 0 || C == 0) return y;

    const size_t smem = (size_t)(DW_TILE + 2 * K - 1) * sizeof(float);
    TORCH_CHECK(smem <= 48 * 1024, "kernel too long for the shared-memory tile");
    const dim3 grid((L_out + DW_TILE - 1) / DW_TILE, C, B);
    auto stream = at::cuda::getCurrentCUDAStream();
    dw1d_smem_halo_kernel<<<grid, DW_TILE, smem, stream>>>(
        x.data_ptr<float>(), weight.data_ptr<float>(), bias.data_ptr<float>(), y.data_ptr<float>(),
        C, L, K, pad, L_out);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
