#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

__device__ __forceinline__ float warp_sum(float v) {
    #pragma unroll
    for (int mask = 16; mask > 0; mask >>= 1) v += __shfl_xor_sync(0xffffffffu, v, mask);
    return v;
}

// Stage 1: one warp per row. Three running sums per lane (p.t, |p|^2, |t|^2) over float4 vectors
// when vec (every row 16-byte aligned), else by a scalar loop; three butterflies leave the totals
// in every lane. Lane 0 stores the row's loss 1 - cos, with each norm clamped to eps as
// F.cosine_similarity does.
__global__ void cos_row_loss_kernel(const float* __restrict__ pred, const float* __restrict__ targ,
                                    float* __restrict__ row_loss, int B, int D, float eps, bool vec) {
    const int lane = threadIdx.x & 31;
    const int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (row >= B) return;  // warp-uniform: a warp past the last row leaves as a whole

    const float* pr = pred + (size_t)row * D;
    const float* tr = targ + (size_t)row * D;
    float dot = 0.0f, pp = 0.0f, tt = 0.0f;
    const int d4 = vec ? D / 4 : 0;
    const float4* p4 = reinterpret_cast<const float4*>(pr);
    const float4* t4 = reinterpret_cast<const float4*>(tr);
    for (int k = lane; k < d4; k += 32) {
        const float4 a = p4[k];
        const float4 b = t4[k];
        dot += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
        pp += a.x * a.x + a.y * a.y + a.z * a.z + a.w * a.w;
        tt += b.x * b.x + b.y * b.y + b.z * b.z + b.w * b.w;
    }
    for (int j = 4 * d4 + lane; j < D; j += 32) {
        const float a = pr[j], b = tr[j];
        dot += a * b;
        pp += a * a;
        tt += b * b;
    }
    dot = warp_sum(dot);
    pp = warp_sum(pp);
    tt = warp_sum(tt);
    if (lane == 0) {
        const float np = fmaxf(sqrtf(pp), eps);
        const float nt = fmaxf(sqrtf(tt), eps);
        row_loss[row] = 1.0f - dot / (np * nt);
    }
}

// Stage 2: a single block sums the B row losses in a fixed order (strided per thread, then a
// shared-memory tree; THREADS a power of two) and divides by B: deterministic.
template <int THREADS>
__global__ void cos_mean_kernel(const float* __restrict__ row_loss, float* __restrict__ out, int B) {
    __shared__ float buf[THREADS];
    float acc = 0.0f;
    for (int i = threadIdx.x; i < B; i += THREADS) acc += row_loss[i];
    buf[threadIdx.x] = acc;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[0] = buf[0] / (float)B;
}

// ---- host ----
torch::Tensor cosine_loss_rows(torch::Tensor predictions, torch::Tensor targets, double eps) {
    TORCH_CHECK(predictions.is_cuda(), "predictions must be a CUDA tensor");
    TORCH_CHECK(targets.is_cuda(), "targets must be a CUDA tensor");
    TORCH_CHECK(predictions.is_contiguous() && targets.is_contiguous(), "inputs must be contiguous");
    TORCH_CHECK(predictions.scalar_type() == torch::kFloat32, "predictions must be float32");
    TORCH_CHECK(targets.scalar_type() == torch::kFloat32, "targets must be float32");
    TORCH_CHECK(predictions.dim() == 2 && targets.dim() == 2, "inputs must be [B, D]");
    TORCH_CHECK(predictions.size(0) == targets.size(0) && predictions.size(1) == targets.size(1),
                "predictions and targets must have the same shape");

    const int B = (int)predictions.size(0);
    const int D = (int)predictions.size(1);
    auto out = torch::empty({}, predictions.options());
    if (B == 0) return out;
    auto row_loss = torch::empty({B}, predictions.options());

    const float* pp = predictions.data_ptr<float>();
    const float* tp = targets.data_ptr<float>();
    const bool vec = (D % 4 == 0) && (reinterpret_cast<uintptr_t>(pp) % 16 == 0) &&
                     (reinterpret_cast<uintptr_t>(tp) % 16 == 0);

    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    const int warps_per_block = 4;
    const int blocks = (B + warps_per_block - 1) / warps_per_block;
    cos_row_loss_kernel<<<blocks, warps_per_block * 32, 0, stream>>>(pp, tp, row_loss.data_ptr<float>(), B, D,
                                                                    (float)eps, vec);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "cos_row_loss_kernel launch failed");
    cos_mean_kernel<256><<<1, 256, 0, stream>>>(row_loss.data_ptr<float>(), out.data_ptr<float>(), B);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "cos_mean_kernel launch failed");
    return out;
}
