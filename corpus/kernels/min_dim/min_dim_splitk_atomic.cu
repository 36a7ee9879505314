#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// Min over dim 1 of a contiguous [B, K, D] tensor, split over K with atomics.
// grid = (column tiles of COLS, chunks of ROWS_PER_BLOCK rows of K, batches); block = COLS x ROWS.
// threadIdx.x picks the column (coalesced loads), threadIdx.y strides over the block's rows.
// The ROWS partial minima of a column meet in shared memory, row 0 folds them, and one atomic per
// column and block merges the chunks into the output, which the host fills with +inf.
constexpr int COLS = 32;
constexpr int ROWS = 8;
constexpr int ROWS_PER_BLOCK = 128;

// There is no float atomicMin. With the sign bit clear (+0.0 and up) the IEEE bit patterns order
// like signed ints, and any negative value already stored compares below as an int; with the sign
// bit set (-0.0 and below) the patterns order in reverse as unsigned ints, above every
// non-negative pattern. So one integer atomic gives the float minimum in both cases. The test is
// on the sign bit, not `v >= 0.0f`: -0.0 >= 0.0f holds, and -0.0's pattern as a signed int is
// INT_MIN, which would win over every stored negative value.
__device__ __forceinline__ void atomic_min_float(float* addr, float v) {
    if (__float_as_int(v) >= 0) {
        atomicMin(reinterpret_cast<int*>(addr), __float_as_int(v));
    } else {
        atomicMax(reinterpret_cast<unsigned int*>(addr), __float_as_uint(v));
    }
}

__global__ void min_dim1_splitk_atomic_kernel(const float* __restrict__ x, float* __restrict__ out,
                                              int K, int D) {
    __shared__ float partial[ROWS][COLS];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int d = blockIdx.x * COLS + tx;
    const int k_begin = blockIdx.y * ROWS_PER_BLOCK;
    const int k_end = min(k_begin + ROWS_PER_BLOCK, K);
    const int b = blockIdx.z;

    float m = __int_as_float(0x7f800000);  // +inf: threads without rows or columns change nothing
    if (d < D) {
        const float* col = x + (size_t)b * K * D + d;
        for (int k = k_begin + ty; k < k_end; k += ROWS) {
            m = fminf(m, col[(size_t)k * D]);
        }
    }
    partial[ty][tx] = m;
    __syncthreads();  // all ROWS partials of the tile written before row 0 reads them

    if (ty == 0 && d < D) {
        float v = partial[0][tx];
        #pragma unroll
        for (int r = 1; r < ROWS; ++r) {
            v = fminf(v, partial[r][tx]);
        }
        atomic_min_float(out + (size_t)b * D + d, v);
    }
}

// ---- host ----
torch::Tensor min_dim_forward(torch::Tensor x, int64_t dim) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    TORCH_CHECK(x.dim() == 3 && dim == 1, "expects x of shape [B, K, D] reduced over dim 1");
    TORCH_CHECK(x.size(1) >= 1, "min over an empty dimension");

    const int B = x.size(0);
    const int K = x.size(1);
    const int D = x.size(2);
    // Every block folds its chunk in with an atomic, so the output must start at +inf.
    auto out = torch::full({B, D}, std::numeric_limits<float>::infinity(), x.options());
    if (B == 0 || D == 0) return out;

    const int chunks = (K + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK;
    TORCH_CHECK(B <= 65535 && chunks <= 65535, "grid too large");
    dim3 block(COLS, ROWS);
    dim3 grid((D + COLS - 1) / COLS, chunks, B);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    min_dim1_splitk_atomic_kernel<<<grid, block, 0, stream>>>(x.data_ptr<float>(), out.data_ptr<float>(), K, D);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "min_dim1_splitk_atomic_kernel: ", cudaGetErrorString(err));
    return out;
}
