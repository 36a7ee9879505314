#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

template <int BLOCK>
__global__ void gn_stats_kernel(const float* __restrict__ x, float* __restrict__ stats,
                                int group_size, float eps) {
    // Welford states of every thread, merged pairwise in a shared-memory tree.
    __shared__ float sh_n[BLOCK];
    __shared__ float sh_mean[BLOCK];
    __shared__ float sh_m2[BLOCK];

    const int tid = threadIdx.x;
    const float* xg = x + (size_t)blockIdx.x * group_size;  // groups are contiguous in NCHW

    float n = 0.0f, mean = 0.0f, m2 = 0.0f;
    for (int i = tid; i < group_size; i += BLOCK) {
        const float v = xg[i];
        n += 1.0f;
        const float d = v - mean;
        mean += d / n;
        m2 += d * (v - mean);
    }
    sh_n[tid] = n;
    sh_mean[tid] = mean;
    sh_m2[tid] = m2;
    __syncthreads();

    for (int stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (tid < stride) {
            const float na = sh_n[tid];
            const float nb = sh_n[tid + stride];
            const float nt = na + nb;
            if (nb > 0.0f) {  // an empty right side changes nothing
                const float delta = sh_mean[tid + stride] - sh_mean[tid];
                const float wb = nb / nt;
                sh_mean[tid] += delta * wb;
                sh_m2[tid] += sh_m2[tid + stride] + delta * delta * na * wb;
                sh_n[tid] = nt;
            }
        }
        __syncthreads();
    }

    if (tid == 0) {
        const float var = sh_m2[0] / (float)group_size;  // biased, as GroupNorm
        stats[2 * blockIdx.x] = sh_mean[0];
        stats[2 * blockIdx.x + 1] = rsqrtf(var + eps);
    }
}

// One thread per element: its group is flat / group_size (groups tile the tensor in order),
// its channel (flat / HW) % C.
__global__ void gn_apply_kernel(const float* __restrict__ x, const float* __restrict__ stats,
                                const float* __restrict__ gamma, const float* __restrict__ beta,
                                float* __restrict__ y, long long total, int C, int HW,
                                int group_size) {
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= total) {
        return;
    }
    const long long grp = idx / group_size;
    const int c = (int)((idx / HW) % C);
    const float mean = stats[2 * grp];
    const float rstd = stats[2 * grp + 1];
    y[idx] = (x[idx] - mean) * rstd * gamma[c] + beta[c];
}

// ---- host ----
torch::Tensor group_norm_two_kernel(torch::Tensor x, torch::Tensor weight, torch::Tensor bias,
                                    int64_t num_groups, double eps) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(weight.is_cuda() && bias.is_cuda(), "weight and bias must be CUDA tensors");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(weight.is_contiguous() && bias.is_contiguous(), "weight and bias must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    TORCH_CHECK(x.dim() == 4, "x must be [N, C, H, W]");

    const int64_t N = x.size(0);
    const int64_t C = x.size(1);
    const int64_t HW = x.size(2) * x.size(3);
    TORCH_CHECK(num_groups > 0 && C % num_groups == 0, "C must be divisible by num_groups");
    TORCH_CHECK(weight.numel() == C && bias.numel() == C, "weight/bias must have C elements");
    const int64_t group_size = (C / num_groups) * HW;
    TORCH_CHECK(group_size < ((int64_t)1 << 31), "group too large");

    auto y = torch::empty_like(x);
    const long long total = x.numel();
    if (total == 0) {
        return y;
    }
    const int64_t groups = N * num_groups;
    auto stats = torch::empty({groups * 2}, x.options());  // (mean, rstd) per (n, g)

    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    constexpr int kStatsThreads = 512;
    gn_stats_kernel<kStatsThreads><<<(unsigned int)groups, kStatsThreads, 0, stream>>>(
        x.data_ptr<float>(), stats.data_ptr<float>(), (int)group_size, (float)eps);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "gn_stats_kernel launch failed");

    const int threads = 256;
    const long long blocks = (total + threads - 1) / threads;
    gn_apply_kernel<<<(unsigned int)blocks, threads, 0, stream>>>(
        x.data_ptr<float>(), stats.data_ptr<float>(), weight.data_ptr<float>(),
        bias.data_ptr<float>(), y.data_ptr<float>(), total, (int)C, (int)HW, (int)group_size);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "gn_apply_kernel launch failed");
    return y;
}
