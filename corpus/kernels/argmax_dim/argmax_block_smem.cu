#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// (value, index) pair ordering: larger value wins, equal values -> smaller index wins,
// which reproduces torch.argmax's "first occurrence" rule.
__device__ __forceinline__ bool better(float v1, int i1, float v2, int i2) {
    return (v1 > v2) || (v1 == v2 && i1 < i2);
}

// One block per row; each thread scans a strided slice, then a shared-memory tree over pairs.
template <int BLOCK>
__global__ void argmax_rows_kernel(const float* __restrict__ x, long long* __restrict__ out, int D) {
    __shared__ float sval[BLOCK];
    __shared__ int sidx[BLOCK];

    const int tid = threadIdx.x;
    const float* xr = x + (size_t)blockIdx.x * D;

    float best_v = -3.402823466e+38f;
    int best_i = 0x7fffffff;  // sentinel: loses every tie against a real index
    for (int j = tid; j < D; j += BLOCK) {
        const float v = xr[j];
        if (better(v, j, best_v, best_i)) {
            best_v = v;
            best_i = j;
        }
    }
    sval[tid] = best_v;
    sidx[tid] = best_i;
    __syncthreads();

    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s && better(sval[tid + s], sidx[tid + s], sval[tid], sidx[tid])) {
            sval[tid] = sval[tid + s];
            sidx[tid] = sidx[tid + s];
        }
        __syncthreads();
    }

    if (tid == 0) {
        out[blockIdx.x] = (long long)sidx[0];
    }
}

// ---- host ----
torch::Tensor argmax_forward(torch::Tensor x, int64_t dim) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.dim() == 2, "x must be [B, D]");
    TORCH_CHECK(dim == 1 || dim == -1, "argmax over the last dimension only");
    TORCH_CHECK(x.size(1) > 0, "argmax of an empty dimension");

    const int B = x.size(0);
    const int D = x.size(1);
    auto out = torch::empty({B}, x.options().dtype(torch::kInt64));
    if (B == 0) return out;

    constexpr int kThreads = 256;
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    argmax_rows_kernel<kThreads><<<B, kThreads, 0, stream>>>(
        x.data_ptr<float>(), reinterpret_cast<long long*>(out.data_ptr<int64_t>()), D);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "argmax_rows_kernel launch failed");
    return out;
}
