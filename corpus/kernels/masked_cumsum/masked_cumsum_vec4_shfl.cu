#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// cumsum(x * mask) along each row. One block per row, tiles of THREADS * 4 elements linked by a
// running carry. Each thread owns 4 consecutive elements: with VEC they arrive as one float4
// and one 32-bit word of mask bytes (rows start 16-byte aligned when D % 4 == 0), else as
// scalars.
// The thread scans its 4 values in registers; the thread totals are scanned with
// __shfl_up_sync inside each warp, and the warp totals by warp 0 through shared memory.
template <int THREADS, bool VEC>
__global__ void masked_cumsum_vec4_kernel(const float* __restrict__ x,
                                          const bool* __restrict__ mask,
                                          float* __restrict__ y, int D) {
    constexpr int WARPS = THREADS / 32;
    constexpr int TILE = THREADS * 4;
    __shared__ float warp_incl[WARPS];

    const int tid = threadIdx.x;
    const int lane = tid & 31;
    const int wid = tid >> 5;
    const size_t row_off = (size_t)blockIdx.x * D;
    const float* xr = x + row_off;
    const bool* mr = mask + row_off;
    float* yr = y + row_off;

    float carry = 0.0f;
    for (int base = 0; base < D; base += TILE) {
        const int i0 = base + tid * 4;
        float v[4];
        const bool whole = VEC && (i0 + 3 < D);
        if (whole) {
            const float4 q = *reinterpret_cast<const float4*>(xr + i0);
            // The 4 mask bytes as one 32-bit word; byte k (bits 8k..8k+7) is element i0 + k.
            const uint32_t m = *reinterpret_cast<const uint32_t*>(mr + i0);
            v[0] = (m & 0xffu) ? q.x : 0.0f;
            v[1] = ((m >> 8) & 0xffu) ? q.y : 0.0f;
            v[2] = ((m >> 16) & 0xffu) ? q.z : 0.0f;
            v[3] = ((m >> 24) & 0xffu) ? q.w : 0.0f;
        } else {
            #pragma unroll
            for (int k = 0; k < 4; ++k) {
                const int i = i0 + k;
                v[k] = (i < D && mr[i]) ? xr[i] : 0.0f;
            }
        }
        v[1] += v[0];
        v[2] += v[1];
        v[3] += v[2];

        float incl = v[3];
        #pragma unroll
        for (int off = 1; off < 32; off <<= 1) {
            const float up = __shfl_up_sync(0xffffffffu, incl, off);
            if (lane >= off) incl += up;
        }
        float prev = __shfl_up_sync(0xffffffffu, incl, 1);  // left neighbour's inclusive total
        if (lane == 0) prev = 0.0f;
        if (lane == 31) warp_incl[wid] = incl;
        __syncthreads();

        if (wid == 0) {
            float w = (lane < WARPS) ? warp_incl[lane] : 0.0f;
            #pragma unroll
            for (int off = 1; off < 32; off <<= 1) {
                const float up = __shfl_up_sync(0xffffffffu, w, off);
                if (lane >= off) w += up;
            }
            if (lane < WARPS) warp_incl[lane] = w;
        }
        __syncthreads();

        const float offset = carry + ((wid > 0) ? warp_incl[wid - 1] : 0.0f) + prev;
        if (whole) {
            *reinterpret_cast<float4*>(yr + i0) =
                make_float4(offset + v[0], offset + v[1], offset + v[2], offset + v[3]);
        } else {
            #pragma unroll
            for (int k = 0; k < 4; ++k)
                if (i0 + k < D) yr[i0 + k] = offset + v[k];
        }
        carry += warp_incl[WARPS - 1];  // the tile's total
        __syncthreads();                // warp_incl is rewritten by the next tile
    }
}

// ---- host ----
torch::Tensor masked_cumsum_vec4(torch::Tensor x, torch::Tensor mask, int64_t dim) {
    TORCH_CHECK(x.is_cuda() && mask.is_cuda(), "x and mask must be CUDA tensors");
    TORCH_CHECK(x.is_contiguous() && mask.is_contiguous(), "x and mask must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    TORCH_CHECK(mask.scalar_type() == torch::kBool, "mask must be bool");
    TORCH_CHECK(x.dim() == 2 && dim == 1, "expects [B, D] scanned along dim 1");
    TORCH_CHECK(mask.sizes() == x.sizes(), "mask must have x's shape");

    const int B = (int)x.size(0);
    const int D = (int)x.size(1);
    auto y = torch::empty_like(x);
    if (B == 0 || D == 0) return y;

    const float* xp = x.data_ptr<float>();
    const bool* mp = mask.data_ptr<bool>();
    float* yp = y.data_ptr<float>();
    // Row r starts at r*D elements: float4 / 32-bit mask word aligned for every row iff D % 4 == 0 and
    // the base pointers are.
    const bool vec = (D % 4 == 0) && (reinterpret_cast<uintptr_t>(xp) % 16 == 0) &&
                     (reinterpret_cast<uintptr_t>(yp) % 16 == 0) &&
                     (reinterpret_cast<uintptr_t>(mp) % 4 == 0);

    constexpr int kThreads = 256;
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    if (vec) {
        masked_cumsum_vec4_kernel<kThreads, true><<<B, kThreads, 0, stream>>>(xp, mp, yp, D);
    } else {
        masked_cumsum_vec4_kernel<kThreads, false><<<B, kThreads, 0, stream>>>(xp, mp, yp, D);
    }
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "masked_cumsum_vec4_kernel: ", cudaGetErrorString(err));
    return y;
}
