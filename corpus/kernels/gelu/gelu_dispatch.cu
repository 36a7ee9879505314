#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// GELU templated on the element type (float / double through AT_DISPATCH_FLOATING_TYPES),
// grid-stride loop with 4 independent elements in flight per iteration.
template <typename scalar_t>
__device__ __forceinline__ scalar_t gelu_exact(scalar_t v);

template <>
__device__ __forceinline__ float gelu_exact<float>(float v) {
    return 0.5f * v * (1.0f + erff(v * 0.7071067811865475f));
}

template <>
__device__ __forceinline__ double gelu_exact<double>(double v) {
    return 0.5 * v * (1.0 + erf(v * 0.7071067811865475244));
}

template <typename scalar_t>
__global__ void gelu_gridstride_kernel(const scalar_t* __restrict__ x,
                                       scalar_t* __restrict__ y,
                                       long long n) {
    const long long step = (long long)gridDim.x * blockDim.x;
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    // Unrolled part: four elements spaced one grid apart.
    for (; i + 3 * step < n; i += 4 * step) {
        scalar_t a = x[i];
        scalar_t b = x[i + step];
        scalar_t c = x[i + 2 * step];
        scalar_t d = x[i + 3 * step];
        y[i] = gelu_exact<scalar_t>(a);
        y[i + step] = gelu_exact<scalar_t>(b);
        y[i + 2 * step] = gelu_exact<scalar_t>(c);
        y[i + 3 * step] = gelu_exact<scalar_t>(d);
    }
    // Remainder.
    for (; i < n; i += step) {
        y[i] = gelu_exact<scalar_t>(x[i]);
    }
}

// ---- host ----
torch::Tensor gelu_cuda(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    x = x.contiguous();
    auto y = torch::empty_like(x);
    const long long n = x.numel();
    if (n == 0) return y;

    const int threads = 512;
    long long blocks = (n + threads - 1) / threads;
    if (blocks > 1024) blocks = 1024;
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();

    AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "gelu_cuda", ([&] {
        gelu_gridstride_kernel<scalar_t><<<(unsigned int)blocks, threads, 0, stream>>>(
            x.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), n);
    }));
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "gelu_gridstride_kernel launch failed");
    return y;
}
