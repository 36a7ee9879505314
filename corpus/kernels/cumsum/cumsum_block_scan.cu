#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// One block per row. The row is processed in chunks of blockDim.x elements; each chunk is
// scanned in shared memory (Hillis-Steele, double barrier per step) and offset by the carry
// of the previous chunks. The scan buffer is dynamic shared memory of blockDim.x floats.
__global__ void cumsum_block_scan_kernel(const float* __restrict__ x, float* __restrict__ y, int D) {
    extern __shared__ float buf[];
    const int tid = threadIdx.x;
    const int nthreads = blockDim.x;
    const float* xr = x + (size_t)blockIdx.x * D;
    float* yr = y + (size_t)blockIdx.x * D;

    float carry = 0.0f;
    for (int base = 0; base < D; base += nthreads) {
        const int i = base + tid;
        buf[tid] = (i < D) ? xr[i] : 0.0f;
        __syncthreads();

        for (int offset = 1; offset < nthreads; offset <<= 1) {
            const float addend = (tid >= offset) ? buf[tid - offset] : 0.0f;
            __syncthreads();  // all reads of this step before any write
            buf[tid] += addend;
            __syncthreads();  // all writes before the next step reads
        }

        if (i < D) {
            yr[i] = carry + buf[tid];
        }
        carry += buf[nthreads - 1];  // chunk total (padding contributed zeros)
        __syncthreads();             // buf[nthreads - 1] read by all before the next chunk's stores
    }
}

// ---- host ----
torch::Tensor cumsum_scan(torch::Tensor x, int64_t dim) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.dim() == 2 && dim == 1, "expects [B, D] scanned along dim 1");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");

    const int64_t rows = x.size(0);
    const int64_t D = x.size(1);
    torch::Tensor y = torch::empty_like(x);
    if (rows == 0 || D == 0) return y;

    const int threads = 256;
    const size_t shmem_bytes = threads * sizeof(float);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    cumsum_block_scan_kernel<<<(unsigned int)rows, threads, shmem_bytes, stream>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), (int)D);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "cumsum_block_scan_kernel launch failed");
    return y;
}
