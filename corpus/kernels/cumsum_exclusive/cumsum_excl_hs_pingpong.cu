#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// The problem's result is [B-1, D+1]: output row r (r < B-1) is 0, x[r,0], x[r,0]+x[r,1], ...,
// sum(x[r,:]). Seen as a scan over the D+1 output positions, position j holds the INCLUSIVE
// prefix of the shifted row s[j] = (j == 0 ? 0 : x[r, j-1]); so every thread loads its shifted
// element and the block runs an ordinary inclusive scan.
//
// One block per output row, chunks of blockDim.x positions linked by a running carry. Inside a
// chunk: Hillis-Steele with two shared-memory buffers (ping-pong), each step reads one buffer and
// writes the other, so a single barrier per step suffices.
__global__ void cumsum_excl_pingpong_kernel(const float* __restrict__ x, float* __restrict__ y,
                                            int D) {
    extern __shared__ float smem[];  // 2 * blockDim.x floats
    const int tid = threadIdx.x;
    const int n = blockDim.x;
    const int L = D + 1;  // output row length
    const float* xr = x + (size_t)blockIdx.x * D;
    float* yr = y + (size_t)blockIdx.x * L;

    float carry = 0.0f;
    for (int base = 0; base < L; base += n) {
        const int j = base + tid;
        int src = 0;  // which half holds the current values
        smem[tid] = (j >= 1 && j < L) ? xr[j - 1] : 0.0f;
        __syncthreads();

        for (int off = 1; off < n; off <<= 1) {
            const float* in = smem + src * n;
            float* out = smem + (src ^ 1) * n;
            float v = in[tid];
            if (tid >= off) v += in[tid - off];
            out[tid] = v;
            src ^= 1;
            __syncthreads();  // the written half is complete before anyone reads it
        }

        const float* scanned = smem + src * n;
        if (j < L) yr[j] = carry + scanned[tid];
        carry += scanned[n - 1];  // chunk total (positions past the row were zeros)
        __syncthreads();          // everyone has read scanned[] before the next chunk's store
    }
}

// ---- host ----
torch::Tensor cumsum_exclusive_pingpong(torch::Tensor x, int64_t dim) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    TORCH_CHECK(x.dim() == 2 && dim == 1, "expects [B, D] scanned along dim 1");

    const int64_t B = x.size(0);
    const int64_t D = x.size(1);
    TORCH_CHECK(B >= 1, "x needs at least one row");
    // cat([0, x], 1)[:-1] drops the last row: B-1 rows of D+1 sums.
    auto y = torch::empty({B - 1, D + 1}, x.options());
    if (B - 1 == 0) return y;

    const int threads = 256;
    const size_t shmem = 2 * threads * sizeof(float);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    cumsum_excl_pingpong_kernel<<<(unsigned int)(B - 1), threads, shmem, stream>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), (int)D);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "cumsum_excl_pingpong_kernel: ", cudaGetErrorString(err));
    return y;
}
