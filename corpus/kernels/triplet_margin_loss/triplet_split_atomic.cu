#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// Long rows split over several blocks: grid.x walks CHUNK-wide column chunks of a row, grid.y
// (plus a loop when B exceeds the grid's y limit) walks rows. Each block reduces its chunk's two
// sums of squared differences in shared memory and adds them to the row's accumulators with
// atomicAdd; a second kernel turns the per-row sums into the loss and averages it.
constexpr int TB_BLOCK = 256;
constexpr int TB_CHUNK = 2048;  // columns per block: 8 per thread
constexpr int TB_MAX_GRID_Y = 65535;

__global__ void triplet_chunk_sums_kernel(const float* __restrict__ anc, const float* __restrict__ pos,
                                          const float* __restrict__ neg, float* __restrict__ sq,
                                          int B, int D, float eps) {
    __shared__ float s_ap[TB_BLOCK];
    __shared__ float s_an[TB_BLOCK];
    const int tid = threadIdx.x;
    const int col0 = blockIdx.x * TB_CHUNK;
    const int col1 = min(col0 + TB_CHUNK, D);

    for (int row = blockIdx.y; row < B; row += gridDim.y) {
        const long long base = (long long)row * D;
        float ap = 0.0f, an = 0.0f;
        for (int j = col0 + tid; j < col1; j += TB_BLOCK) {
            const float a = anc[base + j];
            const float dp = (a - pos[base + j]) + eps;
            const float dn = (a - neg[base + j]) + eps;
            ap += dp * dp;
            an += dn * dn;
        }
        s_ap[tid] = ap;
        s_an[tid] = an;
        __syncthreads();
        for (int s = TB_BLOCK / 2; s > 0; s >>= 1) {
            if (tid < s) {
                s_ap[tid] += s_ap[tid + s];
                s_an[tid] += s_an[tid + s];
            }
            __syncthreads();
        }
        if (tid == 0) {
            atomicAdd(&sq[2 * row], s_ap[0]);
            atomicAdd(&sq[2 * row + 1], s_an[0]);
        }
    }
}

// One block: per-row hinge on the finished distances, then a shared-memory tree for the mean.
template <int THREADS>
__global__ void triplet_finish_kernel(const float* __restrict__ sq, float* __restrict__ out, int B, float margin) {
    __shared__ float buf[THREADS];
    float acc = 0.0f;
    for (int r = threadIdx.x; r < B; r += THREADS) {
        acc += fmaxf(margin + sqrtf(sq[2 * r]) - sqrtf(sq[2 * r + 1]), 0.0f);
    }
    buf[threadIdx.x] = acc;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[0] = buf[0] / (float)B;
}

// ---- host ----
torch::Tensor triplet_margin_split(torch::Tensor anchor, torch::Tensor positive, torch::Tensor negative,
                                   double margin) {
    TORCH_CHECK(anchor.is_cuda(), "anchor must be a CUDA tensor");
    TORCH_CHECK(positive.is_cuda() && negative.is_cuda(), "positive and negative must be CUDA tensors");
    TORCH_CHECK(anchor.is_contiguous() && positive.is_contiguous() && negative.is_contiguous(),
                "inputs must be contiguous");
    TORCH_CHECK(anchor.scalar_type() == torch::kFloat32, "anchor must be float32");
    TORCH_CHECK(positive.scalar_type() == torch::kFloat32 && negative.scalar_type() == torch::kFloat32,
                "positive and negative must be float32");
    TORCH_CHECK(anchor.dim() == 2 && positive.dim() == 2 && negative.dim() == 2, "inputs must be [B, D]");
    TORCH_CHECK(anchor.size(0) == positive.size(0) && anchor.size(0) == negative.size(0) &&
                anchor.size(1) == positive.size(1) && anchor.size(1) == negative.size(1),
                "anchor, positive and negative must have the same shape");

    const int B = (int)anchor.size(0);
    const int D = (int)anchor.size(1);
    auto out = torch::empty({}, anchor.options());
    if (B == 0 || D == 0) return out;
    auto sq = torch::zeros({B, 2}, anchor.options());  // per row: sum (a-p+eps)^2, sum (a-n+eps)^2

    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    const dim3 grid((D + TB_CHUNK - 1) / TB_CHUNK, B < TB_MAX_GRID_Y ? B : TB_MAX_GRID_Y);
    triplet_chunk_sums_kernel<<<grid, TB_BLOCK, 0, stream>>>(anchor.data_ptr<float>(), positive.data_ptr<float>(),
                                                             negative.data_ptr<float>(), sq.data_ptr<float>(),
                                                             B, D, 1e-6f);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "triplet_chunk_sums_kernel launch failed: ", cudaGetErrorString(err));
    triplet_finish_kernel<512><<<1, 512, 0, stream>>>(sq.data_ptr<float>(), out.data_ptr<float>(), B, (float)margin);
    err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "triplet_finish_kernel launch failed: ", cudaGetErrorString(err));
    return out;
}
