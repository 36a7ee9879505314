#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

constexpr int kStatThreads = 256;  // block of the statistics kernel (a power of two: tree reduction)

__device__ __forceinline__ float mish_f(float v) {
    const float sp = (v > 20.0f) ? v : log1pf(expf(v));  // softplus, torch's threshold 20
    return v * tanhf(sp);
}

// Kernel 1: valid convolution + Mish, one thread per output element; the activation is written
// to y, which kernel 3 then normalises in place.
__global__ void cmb_conv_mish_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                     const float* __restrict__ conv_bias, float* __restrict__ y,
                                     int C_in, int H, int W, int C_out, int K, int H_out, int W_out) {
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    const int co = blockIdx.y;
    const int n = blockIdx.z;
    if (p >= H_out * W_out) return;
    const int oh = p / W_out;
    const int ow = p % W_out;
    const int kk2 = K * K;

    float acc = conv_bias[co];
    for (int ci = 0; ci < C_in; ++ci) {
        const float* xin = x + (((size_t)n * C_in + ci) * H + oh) * W + ow;
        const float* wk = w + ((size_t)co * C_in + ci) * kk2;
        for (int kh = 0; kh < K; ++kh) {
            for (int kw = 0; kw < K; ++kw) {
                acc += xin[kh * W + kw] * wk[kh * K + kw];
            }
        }
    }
    y[((size_t)n * C_out + co) * H_out * W_out + p] = mish_f(acc);
}

// Kernel 2: one block per channel computes the batch statistics over its B planes of HW values
// in two passes (the mean, then the centred sum of squares: no E[x^2] - E[x]^2 cancellation),
// each a shared-memory tree, and folds BatchNorm into one scale and one shift per channel.
__global__ void cmb_channel_stats_kernel(const float* __restrict__ y, const float* __restrict__ gamma,
                                         const float* __restrict__ beta, float* __restrict__ scale_shift,
                                         int B, int C, int HW, float eps) {
    __shared__ float red[kStatThreads];
    const int c = blockIdx.x;
    const int tid = threadIdx.x;
    const long long count = (long long)B * HW;

    // Pass 1: sum. Element i of the channel is plane i / HW, pixel i % HW.
    float s = 0.0f;
    for (long long i = tid; i < count; i += kStatThreads) {
        const long long n = i / HW;
        const long long p = i - n * HW;
        s += y[(n * C + c) * HW + p];
    }
    red[tid] = s;
    __syncthreads();
    for (int stride = kStatThreads / 2; stride > 0; stride >>= 1) {
        if (tid < stride) red[tid] += red[tid + stride];
        __syncthreads();
    }
    const float mean = red[0] / (float)count;
    __syncthreads();  // red[0] is read by everyone before pass 2 overwrites it

    // Pass 2: sum of squared deviations.
    float q = 0.0f;
    for (long long i = tid; i < count; i += kStatThreads) {
        const long long n = i / HW;
        const long long p = i - n * HW;
        const float d = y[(n * C + c) * HW + p] - mean;
        q += d * d;
    }
    red[tid] = q;
    __syncthreads();
    for (int stride = kStatThreads / 2; stride > 0; stride >>= 1) {
        if (tid < stride) red[tid] += red[tid + stride];
        __syncthreads();
    }

    if (tid == 0) {
        const float var = red[0] / (float)count;  // biased: BatchNorm normalises with 1/N
        const float sc = gamma[c] * rsqrtf(var + eps);
        scale_shift[2 * c] = sc;
        scale_shift[2 * c + 1] = beta[c] - mean * sc;
    }
}

// Kernel 3: y = y * scale[c] + shift[c], one thread per element, in place.
__global__ void cmb_apply_kernel(float* __restrict__ y, const float* __restrict__ scale_shift,
                                 long long total, int C, int HW) {
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= total) return;
    const int c = (int)((idx / HW) % C);
    y[idx] = y[idx] * scale_shift[2 * c] + scale_shift[2 * c + 1];
}

// ---- host ----
torch::Tensor cmb_direct_twopass_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor conv_bias,
                                         torch::Tensor bn_weight, torch::Tensor bn_bias, double eps) {
    TORCH_CHECK(x.is_cuda() && weight.is_cuda() && conv_bias.is_cuda(), "tensors must be on CUDA");
    TORCH_CHECK(bn_weight.is_cuda() && bn_bias.is_cuda(), "BatchNorm parameters must be on CUDA");
    TORCH_CHECK(x.is_contiguous() && weight.is_contiguous() && conv_bias.is_contiguous() &&
                bn_weight.is_contiguous() && bn_bias.is_contiguous(), "tensors must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "float32 only");
    TORCH_CHECK(x.dim() == 4 && weight.dim() == 4, "expected NCHW input and OIHW weight");
    TORCH_CHECK(weight.size(1) == x.size(1), "channel mismatch");
    TORCH_CHECK(weight.size(2) == weight.size(3), "square kernels only");

    const int B = (int)x.size(0);
    const int C_in = (int)x.size(1);
    const int H = (int)x.size(2);
    const int W = (int)x.size(3);
    const int C_out = (int)weight.size(0);
    const int K = (int)weight.size(2);
    TORCH_CHECK(conv_bias.numel() == C_out && bn_weight.numel() == C_out && bn_bias.numel() == C_out,
                "per-channel parameters must have C_out elements");
    TORCH_CHECK(H >= K && W >= K, "input smaller than the kernel");
    const int H_out = H - K + 1;
    const int W_out = W - K + 1;
    const int HW = H_out * W_out;
    TORCH_CHECK((long long)B * HW > 1, "training-mode BatchNorm needs more than one value per channel");
    TORCH_CHECK(C_out <= 65535 && B <= 65535, "C_out and B must fit in gridDim.y / gridDim.z");

    auto y = torch::empty({B, C_out, H_out, W_out}, x.options());
    auto scale_shift = torch::empty({2 * C_out}, x.options());
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();

    const int threads = 128;
    const dim3 grid1((HW + threads - 1) / threads, C_out, B);
    cmb_conv_mish_kernel<<<grid1, threads, 0, stream>>>(
        x.data_ptr<float>(), weight.data_ptr<float>(), conv_bias.data_ptr<float>(), y.data_ptr<float>(),
        C_in, H, W, C_out, K, H_out, W_out);
    C10_CUDA_KERNEL_LAUNCH_CHECK();

    cmb_channel_stats_kernel<<<C_out, kStatThreads, 0, stream>>>(
        y.data_ptr<float>(), bn_weight.data_ptr<float>(), bn_bias.data_ptr<float>(),
        scale_shift.data_ptr<float>(), B, C_out, HW, (float)eps);
    C10_CUDA_KERNEL_LAUNCH_CHECK();

    const long long total = y.numel();
    const int apply_threads = 256;
    const long long blocks = (total + apply_threads - 1) / apply_threads;
    cmb_apply_kernel<<<(unsigned int)blocks, apply_threads, 0, stream>>>(
        y.data_ptr<float>(), scale_shift.data_ptr<float>(), total, C_out, HW);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
