#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// Tiled max pooling: a block computes MP_TILE consecutive outputs of one row. Neighbouring
// windows overlap (and with dilation each tap is reused by several outputs), so the block first
// copies the input span its outputs read into dynamic shared memory, writing -inf where the span
// lies in the padding or past the row's end; the taps are then read without bounds checks.
// grid.x tiles the output length, grid.y walks the B*C rows (with a loop past the y limit).
constexpr int MP_TILE = 256;  // outputs per block == blockDim.x
constexpr int MP_MAX_GRID_Y = 65535;

__global__ void maxpool1d_tile_kernel(const float* __restrict__ in, float* __restrict__ out,
                                      int rows, int L, int L_out, int ks, int stride, int pad, int dil,
                                      int span) {
    extern __shared__ float win[];  // span = (MP_TILE - 1) * stride + (ks - 1) * dil + 1 floats
    const int tid = threadIdx.x;
    const int o0 = blockIdx.x * MP_TILE;
    const int in0 = o0 * stride - pad;  // input position of win[0]; negative inside the padding
    const float neg_inf = __int_as_float(0xff800000);

    for (int row = blockIdx.y; row < rows; row += gridDim.y) {
        const float* src = in + (long long)row * L;
        for (int c = tid; c < span; c += MP_TILE) {
            const int pos = in0 + c;
            win[c] = (pos >= 0 && pos < L) ? src[pos] : neg_inf;
        }
        __syncthreads();

        const int o = o0 + tid;
        if (o < L_out) {
            const int first = tid * stride;
            float m = win[first];
            for (int j = 1; j < ks; ++j) m = fmaxf(m, win[first + j * dil]);
            out[(long long)row * L_out + o] = m;
        }
        __syncthreads();  // the span is refilled for the next row only after every thread read it
    }
}

// ---- host ----
torch::Tensor maxpool1d_tile_forward(torch::Tensor x, int64_t kernel_size, int64_t stride, int64_t padding,
                                     int64_t dilation) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    TORCH_CHECK(x.dim() == 3, "x must be [B, C, L]");
    TORCH_CHECK(kernel_size > 0 && stride > 0 && dilation > 0 && padding >= 0 && 2 * padding <= kernel_size,
                "invalid kernel_size/stride/padding/dilation");

    const int B = (int)x.size(0), C = (int)x.size(1), L = (int)x.size(2);
    const int ks = (int)kernel_size, s = (int)stride, p = (int)padding, d = (int)dilation;
    const int extent = d * (ks - 1) + 1;
    TORCH_CHECK(L + 2 * p >= extent, "padded input shorter than the dilated window");
    const int L_out = (L + 2 * p - extent) / s + 1;
    auto out = torch::empty({B, C, L_out}, x.options());
    const int rows = B * C;
    if (rows == 0 || L_out <= 0) return out;

    const int span = (MP_TILE - 1) * s + extent;
    const size_t smem = (size_t)span * sizeof(float);
    TORCH_CHECK(smem <= 48 * 1024, "window/stride too large for the shared-memory tile");

    const dim3 grid((L_out + MP_TILE - 1) / MP_TILE, rows < MP_MAX_GRID_Y ? rows : MP_MAX_GRID_Y);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    maxpool1d_tile_kernel<<<grid, MP_TILE, smem, stream>>>(x.data_ptr<float>(), out.data_ptr<float>(),
                                                           rows, L, L_out, ks, s, p, d, span);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "maxpool1d_tile_kernel launch failed: ", cudaGetErrorString(err));
    return out;
}
