#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <stdint.h>

// y = A x with one warp per row of A. Each lane walks the row with float4 loads (16 bytes per
// lane per step, so a warp reads 512 contiguous bytes), then the 32 partial sums are combined
// with a shuffle tree. A row starts at A + row*K: when K is not a multiple of 4 that address is
// not 16-byte aligned, so a scalar head brings it to alignment and a scalar tail finishes the row.
#define MV_WARPS_PER_BLOCK 8

__global__ void matvec_warp_float4_kernel(const float* __restrict__ A, const float* __restrict__ x,
                                          float* __restrict__ y, int M, int K) {
    const int lane = threadIdx.x & 31;
    const int row = blockIdx.x * MV_WARPS_PER_BLOCK + (threadIdx.x >> 5);
    // The whole warp leaves together, so the full-mask shuffles below see all 32 lanes.
    if (row >= M) return;

    const float* a = A + (size_t)row * K;

    // Scalars before the first 16-byte boundary of this row (0..3, at most K).
    int head = (int)(((16u - ((uintptr_t)a & 15u)) & 15u) >> 2);
    if (head > K) head = K;
    const int n4 = (K - head) >> 2;
    const int body_end = head + 4 * n4;

    float sum = 0.0f;
    if (lane < head) sum = a[lane] * x[lane];

    // x is read as scalars: its alignment at index head differs from A's in general.
    const float4* a4 = reinterpret_cast<const float4*>(a + head);
    for (int i = lane; i < n4; i += 32) {
        const float4 v = a4[i];
        const int k = head + 4 * i;
        sum += v.x * x[k] + v.y * x[k + 1] + v.z * x[k + 2] + v.w * x[k + 3];
    }

    for (int k = body_end + lane; k < K; k += 32) sum += a[k] * x[k];

    for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (lane == 0) y[row] = sum;
}

// ---- host ----
torch::Tensor matvec_warp_forward(torch::Tensor A, torch::Tensor B) {
    TORCH_CHECK(A.is_cuda() && B.is_cuda(), "A and B must be CUDA tensors");
    TORCH_CHECK(A.is_contiguous() && B.is_contiguous(), "A and B must be contiguous");
    TORCH_CHECK(A.scalar_type() == torch::kFloat32 && B.scalar_type() == torch::kFloat32, "float32 only");
    TORCH_CHECK(A.dim() == 2, "A must be [M, K]");
    TORCH_CHECK(B.dim() == 2 && B.size(0) == A.size(1) && B.size(1) == 1, "B must be [K, 1]");

    const int M = (int)A.size(0);
    const int K = (int)A.size(1);
    auto C = torch::empty({M, 1}, A.options());
    if (M == 0) return C;

    const dim3 block(32 * MV_WARPS_PER_BLOCK);
    const dim3 grid((M + MV_WARPS_PER_BLOCK - 1) / MV_WARPS_PER_BLOCK);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    matvec_warp_float4_kernel<<<grid, block, 0, stream>>>(A.data_ptr<float>(), B.data_ptr<float>(),
                                                          C.data_ptr<float>(), M, K);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "matvec_warp_float4_kernel launch failed: ", cudaGetErrorString(err));
    return C;
}
