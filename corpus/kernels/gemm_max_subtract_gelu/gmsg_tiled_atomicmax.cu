#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

// Two kernels: a shared-memory tiled GEMM whose epilogue folds each tile's row maxima into a
// per-row buffer with an integer atomic, then a per-row finish (minus the mean over the kept
// dim, exact GELU).
//
// Tiled GEMM: a 16x16 block computes a 16x16 tile of z = x W^T + b from 16-wide slabs of x and W
// in shared memory. A warp holds two tile rows (ty even and odd, 16 lanes each), so the max over
// the tile's columns of a row is a 4-step xor shuffle inside a 16-lane half; lane tx == 0 of each
// row then merges it into rowmax[b].
#define TA_TILE 16

// There is no float atomicMax. Non-negative floats (sign bit clear) order like their bit patterns
// as signed ints, and every stored negative value is a negative int, so a signed atomicMax
// handles them; floats with the sign bit set order in reverse as unsigned ints and sit above
// every non-negative pattern, so an unsigned atomicMin handles them. The branch tests the sign
// bit itself: -0.0f >= 0.0f is true, but -0.0's pattern is INT_MIN as a signed int.
__device__ __forceinline__ void atomic_max_float(float* addr, float v) {
    if (__float_as_int(v) >= 0) {
        atomicMax(reinterpret_cast<int*>(addr), __float_as_int(v));
    } else {
        atomicMin(reinterpret_cast<unsigned int*>(addr), __float_as_uint(v));
    }
}

__global__ void gmsg_tile_max_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                     const float* __restrict__ bias, float* __restrict__ rowmax,
                                     int B, int K, int N) {
    __shared__ float xs[TA_TILE][TA_TILE];
    __shared__ float ws[TA_TILE][TA_TILE + 1];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int b = blockIdx.y * TA_TILE + ty;      // row of this thread's output
    const int n = blockIdx.x * TA_TILE + tx;      // feature of this thread's output
    const int wrow = blockIdx.x * TA_TILE + ty;   // W row this thread stages

    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TA_TILE) {
        const int k = k0 + tx;
        xs[ty][tx] = (b < B && k < K) ? x[(size_t)b * K + k] : 0.0f;
        ws[ty][tx] = (wrow < N && k < K) ? w[(size_t)wrow * K + k] : 0.0f;
        __syncthreads();
        #pragma unroll
        for (int kk = 0; kk < TA_TILE; ++kk) {
            acc += xs[ty][kk] * ws[tx][kk];
        }
        __syncthreads();
    }

    // Columns past N must not win the max: they take -inf. Every lane joins the shuffles.
    float v = (n < N) ? acc + bias[n] : -INFINITY;
    #pragma unroll
    for (int off = TA_TILE / 2; off > 0; off >>= 1) {
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
    }
    if (tx == 0 && b < B) atomic_max_float(rowmax + b, v);
}

__global__ void gmsg_finish_kernel(const float* __restrict__ rowmax, float* __restrict__ out, int B) {
    const int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < B) {
        const float m = rowmax[b];
        const float mean = m / 1.0f;  // mean over dim 1 of a [B, 1] column: one value over a count of 1
        const float v = m - mean;
        out[b] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
    }
}

// ---- host ----
torch::Tensor gmsg_tiled_atomicmax_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias, int64_t max_dim) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(weight.is_cuda() && bias.is_cuda(), "weight and bias must be CUDA tensors");
    TORCH_CHECK(x.is_contiguous() && weight.is_contiguous() && bias.is_contiguous(), "contiguous inputs required");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "float32 only");
    TORCH_CHECK(x.dim() == 2 && weight.dim() == 2 && weight.size(1) == x.size(1), "x [B, K], weight [N, K]");
    TORCH_CHECK(bias.numel() == weight.size(0), "bias must have N elements");
    TORCH_CHECK(max_dim == 1, "only max_dim = 1 is implemented");
    TORCH_CHECK(weight.size(0) >= 1, "max over an empty dimension");

    const int B = (int)x.size(0);
    const int K = (int)x.size(1);
    const int N = (int)weight.size(0);
    auto out = torch::empty({B, 1}, x.options());
    if (B == 0) return out;

    // Every tile folds its maxima in with an atomic, so the buffer starts at -inf.
    auto rowmax = torch::full({B}, -std::numeric_limits<float>::infinity(), x.options());

    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    const dim3 block(TA_TILE, TA_TILE);
    const dim3 grid((N + TA_TILE - 1) / TA_TILE, (B + TA_TILE - 1) / TA_TILE);
    TORCH_CHECK(grid.y <= 65535, "batch too large for the grid");
    gmsg_tile_max_kernel<<<grid, block, 0, stream>>>(
        x.data_ptr<float>(), weight.data_ptr<float>(), bias.data_ptr<float>(), rowmax.data_ptr<float>(), B, K, N);
    C10_CUDA_KERNEL_LAUNCH_CHECK();

    const int threads = 128;
    gmsg_finish_kernel<<<(B + threads - 1) / threads, threads, 0, stream>>>(
        rowmax.data_ptr<float>(), out.data_ptr<float>(), B);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}
