#include <torch/extension.h>
#include <cuda_runtime.h>
#include <c10/cuda/CUDAException.h>

__device__ __forceinline__ float relu_scalar(float v) {
    return v > 0.0f ? v : 0.0f;
}

// Main body: one float4 (4 consecutive floats) per thread.
__global__ void relu_vec4_kernel(const float4* __restrict__ x4, float4* __restrict__ y4, long long n4) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = x4[i];
        v.x = relu_scalar(v.x);
        v.y = relu_scalar(v.y);
        v.z = relu_scalar(v.z);
        v.w = relu_scalar(v.w);
        y4[i] = v;
    }
}

// Scalar kernel for elements [start, n): the tail that does not fill a float4, or
// everything when the buffers are not 16-byte aligned.
__global__ void relu_scalar_kernel(const float* __restrict__ x, float* __restrict__ y,
                                   long long start, long long n) {
    long long i = start + (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = relu_scalar(x[i]);
    }
}

// ---- host ----
torch::Tensor relu_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");

    torch::Tensor y = torch::empty_like(x);
    const long long n = x.numel();
    const float* xp = x.data_ptr<float>();
    float* yp = y.data_ptr<float>();

    const bool aligned = (reinterpret_cast<size_t>(xp) % 16 == 0) && (reinterpret_cast<size_t>(yp) % 16 == 0);
    const long long n4 = aligned ? n / 4 : 0;
    const int threads = 256;

    if (n4 > 0) {
        const long long blocks = (n4 + threads - 1) / threads;
        relu_vec4_kernel<<<(unsigned int)blocks, threads>>>(
            reinterpret_cast<const float4*>(xp), reinterpret_cast<float4*>(yp), n4);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
    }
    const long long done = n4 * 4;
    const long long rest = n - done;
    if (rest > 0) {
        const long long blocks = (rest + threads - 1) / threads;
        relu_scalar_kernel<<<(unsigned int)blocks, threads>>>(xp, yp, done, n);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
    }
    return y;
}
