#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

// out = swish(x W^T + b) * scale, the hybrid way: the GEMM and its bias go to the library
// (torch::addmm, cuBLAS on a GPU) and only the elementwise tail is a custom kernel, applied in
// place to addmm's fresh output. This is the shape that wins on KernelBench's level 2 (a
// hand-written GEMM rarely beats cuBLAS, a fused tail saves a pass over the output), and the one a
// "no library compute" gate rejects although the result is right.
//
// The tail is one grid-stride pass; four elements per float4 when the output is 16-byte aligned
// and its size a multiple of 4, else one at a time.

__device__ __forceinline__ float swish_scaled(float z, float scale) {
    // z / (1 + e^-z) is z * sigmoid(z); for z below about -88 e^-z is inf and the quotient a
    // signed zero, the Swish's limit.
    return z / (1.0f + expf(-z)) * scale;
}

__global__ void mss_tail_vec4_kernel(float4* __restrict__ y, long long n4, float scale) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 v = y[i];
        v.x = swish_scaled(v.x, scale);
        v.y = swish_scaled(v.y, scale);
        v.z = swish_scaled(v.z, scale);
        v.w = swish_scaled(v.w, scale);
        y[i] = v;
    }
}

__global__ void mss_tail_scalar_kernel(float* __restrict__ y, long long n, float scale) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        y[i] = swish_scaled(y[i], scale);
    }
}

// ---- host ----
torch::Tensor mss_library_gemm_tail_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias,
                                            double scaling_factor) {
    TORCH_CHECK(x.is_cuda() && weight.is_cuda() && bias.is_cuda(), "all inputs must be CUDA tensors");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32 && weight.scalar_type() == torch::kFloat32 &&
                bias.scalar_type() == torch::kFloat32, "float32 only");
    TORCH_CHECK(x.dim() == 2 && weight.dim() == 2 && weight.size(1) == x.size(1), "x [B, K], weight [N, K]");
    TORCH_CHECK(bias.numel() == weight.size(0), "bias must have N elements");

    // bias broadcast over the rows, plus x W^T: a new contiguous [B, N] tensor.
    torch::Tensor out = torch::addmm(bias, x, weight.t());
    const long long n = out.numel();
    if (n == 0) return out;

    const int threads = 256;
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    float* y = out.data_ptr<float>();
    if (n % 4 == 0 && reinterpret_cast<uintptr_t>(y) % 16 == 0) {
        const long long n4 = n / 4;
        const long long blocks = (n4 + threads - 1) / threads;
        mss_tail_vec4_kernel<<<(unsigned)(blocks < 65535 ? blocks : 65535), threads, 0, stream>>>(
            reinterpret_cast<float4*>(y), n4, (float)scaling_factor);
    } else {
        const long long blocks = (n + threads - 1) / threads;
        mss_tail_scalar_kernel<<<(unsigned)(blocks < 65535 ? blocks : 65535), threads, 0, stream>>>(
            y, n, (float)scaling_factor);
    }
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}
