#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// Sigmoid over a rows x cols matrix with 2-D blocks and a 2-D grid: threadIdx.x/blockIdx.x
// pick the column, threadIdx.y/blockIdx.y the row. gridDim.y may not exceed 65535, so the
// row index strides by gridDim.y * blockDim.y until every row is done.
#define TILE_X 64
#define TILE_Y 4

__device__ __forceinline__ float sigmoidf_(float v) {
    // expf(-v) overflows to inf for v < ~-88 and 1 / inf = 0, the correctly rounded
    // limit; for large v it underflows to 0 and the result is 1.
    return 1.0f / (1.0f + expf(-v));
}

__global__ void sigmoid_grid2d_kernel(const float* __restrict__ x, float* __restrict__ y,
                                      int rows, int cols) {
    const int col = blockIdx.x * TILE_X + threadIdx.x;
    if (col >= cols) {
        return;
    }
    const int row_step = gridDim.y * TILE_Y;
    for (int row = blockIdx.y * TILE_Y + threadIdx.y; row < rows; row += row_step) {
        const long long idx = (long long)row * cols + col;  // rows * cols may exceed 2^31
        y[idx] = sigmoidf_(x[idx]);
    }
}

// ---- host ----
torch::Tensor sigmoid_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    TORCH_CHECK(x.dim() == 2, "x must be 2-D (batch, dim)");
    TORCH_CHECK(x.size(0) <= 2147483647 && x.size(1) <= 2147483647, "a dimension exceeds int range");

    auto y = torch::empty_like(x);
    const int rows = (int)x.size(0);
    const int cols = (int)x.size(1);
    if (rows == 0 || cols == 0) {
        return y;
    }
    const dim3 block(TILE_X, TILE_Y);
    const long long row_tiles = (rows + TILE_Y - 1) / TILE_Y;
    const dim3 grid((cols + TILE_X - 1) / TILE_X, (unsigned int)(row_tiles < 65535 ? row_tiles : 65535));
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    sigmoid_grid2d_kernel<<<grid, block, 0, stream>>>(x.data_ptr<float>(), y.data_ptr<float>(), rows, cols);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "sigmoid_grid2d_kernel launch failed: ", cudaGetErrorString(err));
    return y;
}
