#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

__device__ __forceinline__ float warp_allreduce_sum(float v) {
    #pragma unroll
    for (int mask = 16; mask > 0; mask >>= 1) v += __shfl_xor_sync(0xffffffffu, v, mask);
    return v;
}

__device__ __forceinline__ float hinge(float y, float p) { return fmaxf(0.0f, 1.0f - y * p); }

// Stage 1: one warp per row, rows strided over all warps of the grid (the loop bound depends on
// the warp only, so every lane reaches the shuffles). Lane 0 reads the row's label byte and
// broadcasts the sign; the row is read as float4 when vec (every row starts 16-byte aligned, so
// D % 4 == 0 and the scalar loop after it is empty), else by the scalar loop alone. The warp's
// total goes to row_sums[row]: no atomics.
__global__ void hinge_row_sums_kernel(const float* __restrict__ pred, const bool* __restrict__ labels,
                                      float* __restrict__ row_sums, int B, int D, bool vec) {
    const int lane = threadIdx.x & 31;
    const int warps_per_block = blockDim.x >> 5;
    const int total_warps = gridDim.x * warps_per_block;
    for (int row = blockIdx.x * warps_per_block + (threadIdx.x >> 5); row < B; row += total_warps) {
        float y = 0.0f;
        if (lane == 0) y = labels[row] ? 1.0f : -1.0f;
        y = __shfl_sync(0xffffffffu, y, 0);

        const float* pr = pred + (size_t)row * D;
        const int d4 = vec ? (D >> 2) : 0;
        const float4* p4 = reinterpret_cast<const float4*>(pr);
        float acc = 0.0f;
        for (int k = lane; k < d4; k += 32) {
            const float4 v = p4[k];
            acc += hinge(y, v.x) + hinge(y, v.y) + hinge(y, v.z) + hinge(y, v.w);
        }
        for (int j = 4 * d4 + lane; j < D; j += 32) acc += hinge(y, pr[j]);

        acc = warp_allreduce_sum(acc);
        if (lane == 0) row_sums[row] = acc;
    }
}

// Stage 2: one block adds the B row sums in a fixed order (strided per thread, shuffles within
// each warp, one shared slot per warp, then warp 0) and divides by n = B * D: deterministic.
__global__ void hinge_finish_kernel(const float* __restrict__ row_sums, int B, float* __restrict__ out,
                                    double n) {
    __shared__ float slots[32];
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    float acc = 0.0f;
    for (int i = threadIdx.x; i < B; i += blockDim.x) acc += row_sums[i];
    acc = warp_allreduce_sum(acc);
    if (lane == 0) slots[warp] = acc;
    __syncthreads();
    if (warp == 0) {
        const int nwarps = blockDim.x >> 5;
        float v = (lane < nwarps) ? slots[lane] : 0.0f;
        v = warp_allreduce_sum(v);
        if (lane == 0) out[0] = (float)((double)v / n);
    }
}

// ---- host ----
torch::Tensor hinge_loss_rows(torch::Tensor predictions, torch::Tensor targets) {
    TORCH_CHECK(predictions.is_cuda(), "predictions must be a CUDA tensor");
    TORCH_CHECK(targets.is_cuda(), "targets must be a CUDA tensor");
    TORCH_CHECK(predictions.is_contiguous() && targets.is_contiguous(), "inputs must be contiguous");
    TORCH_CHECK(predictions.scalar_type() == torch::kFloat32, "predictions must be float32");
    TORCH_CHECK(targets.scalar_type() == torch::kBool, "targets must be bool (true = +1, false = -1)");
    TORCH_CHECK(predictions.dim() == 2, "predictions must be [B, D]");
    TORCH_CHECK(targets.numel() == predictions.size(0), "targets must hold one label per row");

    const int B = (int)predictions.size(0);
    const int D = (int)predictions.size(1);
    auto out = torch::empty({}, predictions.options());
    if (B == 0) return out;
    auto row_sums = torch::empty({B}, predictions.options());

    const float* pp = predictions.data_ptr<float>();
    // Row r starts at pp + r * D: 16-byte aligned for every r iff pp is and D % 4 == 0.
    const bool vec = (D % 4 == 0) && (reinterpret_cast<uintptr_t>(pp) % 16 == 0);

    constexpr int kWarpsPerBlock = 8;
    const int threads = kWarpsPerBlock * 32;
    int blocks = (B + kWarpsPerBlock - 1) / kWarpsPerBlock;
    if (blocks > 2048) blocks = 2048;  // the row loop covers the rest

    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    hinge_row_sums_kernel<<<blocks, threads, 0, stream>>>(pp, targets.data_ptr<bool>(), row_sums.data_ptr<float>(),
                                                          B, D, vec);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "hinge_row_sums_kernel launch failed");
    hinge_finish_kernel<<<1, 1024, 0, stream>>>(row_sums.data_ptr<float>(), B, out.data_ptr<float>(),
                                                (double)B * (double)D);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "hinge_finish_kernel launch failed");
    return out;
}
