#include <torch/extension.h>
#include <cuda_runtime.h>

// Tiled 'same' convolution, stride 1, padding K/2. A TILE x TILE block computes a TILE x TILE
// patch of one output plane (n, co). For each input channel it stages the (TILE+K-1)^2 input
// patch (zero-padded halo) and the K x K filter in shared memory.
template <int K, int TILE>
__global__ void conv2d_tile_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                   const float* __restrict__ bias, float* __restrict__ y,
                                   int C_in, int C_out, int H, int W) {
    constexpr int PAD = K / 2;
    constexpr int IN_T = TILE + K - 1;
    __shared__ float patch[IN_T][IN_T];
    __shared__ float filt[K * K];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int tid = ty * TILE + tx;
    const int ow = blockIdx.x * TILE + tx;
    const int oh = blockIdx.y * TILE + ty;
    const int n = blockIdx.z / C_out;
    const int co = blockIdx.z % C_out;
    const int row0 = blockIdx.y * TILE - PAD;
    const int col0 = blockIdx.x * TILE - PAD;

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        const float* plane = x + ((size_t)n * C_in + ci) * H * W;
        for (int e = tid; e < IN_T * IN_T; e += TILE * TILE) {
            const int r = e / IN_T;
            const int c = e % IN_T;
            const int gr = row0 + r;
            const int gc = col0 + c;
            patch[r][c] = (gr >= 0 && gr < H && gc >= 0 && gc < W) ? plane[gr * W + gc] : 0.0f;
        }
        if (tid < K * K) {
            filt[tid] = w[((size_t)co * C_in + ci) * K * K + tid];
        }
        __syncthreads();

        #pragma unroll
        for (int kh = 0; kh < K; ++kh) {
            #pragma unroll
            for (int kw = 0; kw < K; ++kw) {
                acc += patch[ty + kh][tx + kw] * filt[kh * K + kw];
            }
        }
        __syncthreads();
    }

    if (oh < H && ow < W) {
        y[(((size_t)n * C_out + co) * H + oh) * W + ow] = acc + bias[co];
    }
}

// ---- host ----
torch::Tensor conv2d_same_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(weight.is_cuda() && bias.is_cuda(), "weight and bias must be CUDA tensors");
    TORCH_CHECK(x.is_contiguous() && weight.is_contiguous() && bias.is_contiguous(), "contiguous tensors required");
    TORCH_CHECK(x.dim() == 4, "x must be [B, C_in, H, W]");
    TORCH_CHECK(weight.dim() == 4 && weight.size(1) == x.size(1), "weight must be [C_out, C_in, K, K]");
    TORCH_CHECK(weight.size(2) == 3 && weight.size(3) == 3, "this kernel is specialised for 3x3 filters");

    const int B = x.size(0);
    const int C_in = x.size(1);
    const int H = x.size(2);
    const int W = x.size(3);
    const int C_out = weight.size(0);
    TORCH_CHECK((long long)B * C_out <= 65535, "B * C_out exceeds gridDim.z");

    torch::Tensor y = torch::empty({B, C_out, H, W}, x.options());
    if (B == 0 || C_out == 0 || H == 0 || W == 0) return y;

    constexpr int TILE = 16;
    dim3 block(TILE, TILE);
    dim3 grid((W + TILE - 1) / TILE, (H + TILE - 1) / TILE, B * C_out);
    conv2d_tile_kernel<3, TILE><<<grid, block>>>(x.data_ptr<float>(), weight.data_ptr<float>(),
                                                  bias.data_ptr<float>(), y.data_ptr<float>(),
                                                  C_in, C_out, H, W);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "conv2d_tile_kernel launch failed");
    return y;
}
