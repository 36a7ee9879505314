#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// pairwise_distance's eps is added to each difference before squaring: |a - x + eps|_2.
constexpr float kPairwiseEps = 1e-6f;

__device__ __forceinline__ float warp_sum(float v) {
    #pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;  // complete in lane 0 only
}

__device__ __forceinline__ float sq_shift(float a, float x) {
    const float d = (a - x) + kPairwiseEps;
    return d * d;
}

// Stage 1: one warp per row. Each lane accumulates the squared (shifted) differences anchor -
// positive and anchor - negative over float4 vectors when vec, else in a scalar loop; shuffles
// bring both sums to lane 0, which stores max(0, margin + d_ap - d_an) for the row.
__global__ void triplet_row_kernel(const float* __restrict__ anc, const float* __restrict__ pos,
                                   const float* __restrict__ neg, float* __restrict__ row_loss,
                                   int B, int D, float margin, bool vec) {
    const int lane = threadIdx.x & 31;
    const int warps_per_block = blockDim.x >> 5;
    for (int row = blockIdx.x * warps_per_block + (threadIdx.x >> 5); row < B;
         row += gridDim.x * warps_per_block) {
        const size_t base = (size_t)row * D;
        float sp = 0.0f, sn = 0.0f;
        const int d4 = vec ? (D >> 2) : 0;
        const float4* a4 = reinterpret_cast<const float4*>(anc + base);
        const float4* p4 = reinterpret_cast<const float4*>(pos + base);
        const float4* n4 = reinterpret_cast<const float4*>(neg + base);
        for (int k = lane; k < d4; k += 32) {
            const float4 a = a4[k], p = p4[k], n = n4[k];
            sp += sq_shift(a.x, p.x) + sq_shift(a.y, p.y) + sq_shift(a.z, p.z) + sq_shift(a.w, p.w);
            sn += sq_shift(a.x, n.x) + sq_shift(a.y, n.y) + sq_shift(a.z, n.z) + sq_shift(a.w, n.w);
        }
        for (int j = 4 * d4 + lane; j < D; j += 32) {
            const float a = anc[base + j];
            sp += sq_shift(a, pos[base + j]);
            sn += sq_shift(a, neg[base + j]);
        }
        sp = warp_sum(sp);
        sn = warp_sum(sn);
        if (lane == 0) row_loss[row] = fmaxf(margin + sqrtf(sp) - sqrtf(sn), 0.0f);
    }
}

// Stage 2: one block averages the row losses in a fixed order (strided per thread, shuffles,
// one shared slot per warp, warp 0 finishes): deterministic.
__global__ void triplet_mean_kernel(const float* __restrict__ row_loss, float* __restrict__ out, int B) {
    __shared__ float slots[32];
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    float acc = 0.0f;
    for (int i = threadIdx.x; i < B; i += blockDim.x) acc += row_loss[i];
    acc = warp_sum(acc);
    if (lane == 0) slots[warp] = acc;
    __syncthreads();
    if (warp == 0) {
        float v = (lane < (int)(blockDim.x >> 5)) ? slots[lane] : 0.0f;
        v = warp_sum(v);
        if (lane == 0) out[0] = v / (float)B;
    }
}

// ---- host ----
torch::Tensor triplet_margin_rows(torch::Tensor anchor, torch::Tensor positive, torch::Tensor negative,
                                  double margin) {
    TORCH_CHECK(anchor.is_cuda() && positive.is_cuda() && negative.is_cuda(), "inputs must be CUDA tensors");
    TORCH_CHECK(anchor.is_contiguous() && positive.is_contiguous() && negative.is_contiguous(),
                "inputs must be contiguous");
    TORCH_CHECK(anchor.scalar_type() == torch::kFloat32 && positive.scalar_type() == torch::kFloat32 &&
                negative.scalar_type() == torch::kFloat32, "inputs must be float32");
    TORCH_CHECK(anchor.dim() == 2, "anchor must be [B, D]");
    TORCH_CHECK(positive.sizes() == anchor.sizes() && negative.sizes() == anchor.sizes(),
                "anchor, positive and negative must have the same shape");

    const int B = (int)anchor.size(0);
    const int D = (int)anchor.size(1);
    auto out = torch::empty({}, anchor.options());
    if (B == 0) return out;
    auto row_loss = torch::empty({B}, anchor.options());

    const float* ap = anchor.data_ptr<float>();
    const float* pp = positive.data_ptr<float>();
    const float* np = negative.data_ptr<float>();
    const bool vec = (D % 4 == 0) && (reinterpret_cast<uintptr_t>(ap) % 16 == 0) &&
                     (reinterpret_cast<uintptr_t>(pp) % 16 == 0) && (reinterpret_cast<uintptr_t>(np) % 16 == 0);

    const int threads = 256;  // 8 warps -> 8 rows per block per pass
    int blocks = (B + 7) / 8;
    if (blocks > 1024) blocks = 1024;
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    triplet_row_kernel<<<blocks, threads, 0, stream>>>(ap, pp, np, row_loss.data_ptr<float>(), B, D,
                                                      (float)margin, vec);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "triplet_row_kernel launch failed");
    triplet_mean_kernel<<<1, 512, 0, stream>>>(row_loss.data_ptr<float>(), out.data_ptr<float>(), B);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "triplet_mean_kernel launch failed");
    return out;
}
