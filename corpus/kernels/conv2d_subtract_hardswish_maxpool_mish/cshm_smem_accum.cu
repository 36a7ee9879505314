#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

constexpr int kThreads = 256;   // 1-D block
constexpr int kCoPerBlock = 4;  // output channels per block
constexpr int kTileTarget = 16; // the conv tile side is the largest multiple of P not above this (or P)

__device__ __forceinline__ float hardswish_f(float v) {
    return v * fminf(fmaxf(v + 3.0f, 0.0f), 6.0f) * (1.0f / 6.0f);
}

__device__ __forceinline__ float mish_f(float v) {
    const float sp = (v > 20.0f) ? v : log1pf(expf(v));  // torch's softplus threshold
    return v * tanhf(sp);
}

// Tiled convolution whose accumulators live in shared memory rather than registers, so one
// 1-D block serves any tile size: a block owns a T x T tile of convolution outputs (T a multiple
// of P) for kCoPerBlock channels of one sample; the kCoPerBlock * T * T accumulators are spread
// over the threads with a strided loop. Per input channel the input patch with its K - 1 halo and
// the filters are staged; after the last channel the epilogue turns every accumulator into
// HardSwish(acc + bias - sub) in place, and the pooled outputs (max over P x P, then Mish) are
// read from that tile.
// Dynamic shared memory: acc [kCoPerBlock*T*T] | patch [(T+K-1)^2] | filt [kCoPerBlock*K*K].
__global__ void cshm_smem_accum_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                       const float* __restrict__ conv_bias, float* __restrict__ y,
                                       int C_in, int H, int W, int C_out, int K, int P, int T,
                                       int H_pool, int W_pool, int co_groups, float sub) {
    extern __shared__ float smem[];
    const int tt = T * T;
    const int in_t = T + K - 1;
    const int kk2 = K * K;
    float* acc = smem;
    float* patch = acc + kCoPerBlock * tt;
    float* filt = patch + in_t * in_t;

    const int tid = threadIdx.x;
    const int n = blockIdx.z / co_groups;
    const int co0 = (blockIdx.z % co_groups) * kCoPerBlock;
    const int oh0 = blockIdx.y * T;
    const int ow0 = blockIdx.x * T;
    const int n_acc = kCoPerBlock * tt;

    for (int e = tid; e < n_acc; e += kThreads) acc[e] = 0.0f;

    for (int ci = 0; ci < C_in; ++ci) {
        const float* plane = x + ((size_t)n * C_in + ci) * H * W;
        for (int e = tid; e < in_t * in_t; e += kThreads) {
            const int r = e / in_t;
            const int c = e - r * in_t;
            const int gr = oh0 + r;
            const int gc = ow0 + c;
            patch[e] = (gr < H && gc < W) ? plane[(size_t)gr * W + gc] : 0.0f;
        }
        for (int e = tid; e < kCoPerBlock * kk2; e += kThreads) {
            const int co = co0 + e / kk2;
            filt[e] = (co < C_out) ? w[((size_t)co * C_in + ci) * kk2 + e % kk2] : 0.0f;
        }
        __syncthreads();

        // Each accumulator is owned by exactly one thread (same e every input channel): no races.
        for (int e = tid; e < n_acc; e += kThreads) {
            const int c = e / tt;
            const int r = (e - c * tt) / T;
            const int col = e % T;
            const float* fk = filt + c * kk2;
            float s = acc[e];
            for (int kh = 0; kh < K; ++kh) {
                const float* prow = patch + (r + kh) * in_t + col;
                for (int kw = 0; kw < K; ++kw) {
                    s += prow[kw] * fk[kh * K + kw];
                }
            }
            acc[e] = s;
        }
        __syncthreads();
    }

    // Epilogue 1: bias, subtract, HardSwish, in place.
    for (int e = tid; e < n_acc; e += kThreads) {
        const int co = co0 + e / tt;
        const float cb = (co < C_out) ? conv_bias[co] : 0.0f;
        acc[e] = hardswish_f(acc[e] + cb - sub);
    }
    __syncthreads();

    // Epilogue 2: pooled outputs of the tile, Mish on each max.
    const int tpo = T / P;
    for (int e = tid; e < kCoPerBlock * tpo * tpo; e += kThreads) {
        const int c = e / (tpo * tpo);
        const int py = (e / tpo) % tpo;
        const int px = e % tpo;
        const int co = co0 + c;
        const int ph = blockIdx.y * tpo + py;
        const int pw = blockIdx.x * tpo + px;
        if (co < C_out && ph < H_pool && pw < W_pool) {
            const float* a = acc + c * tt + (py * P) * T + px * P;
            float m = a[0];
            for (int dy = 0; dy < P; ++dy) {
                for (int dx = 0; dx < P; ++dx) {
                    m = fmaxf(m, a[dy * T + dx]);
                }
            }
            y[(((size_t)n * C_out + co) * H_pool + ph) * W_pool + pw] = mish_f(m);
        }
    }
}

// ---- host ----
torch::Tensor cshm_smem_accum_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor conv_bias,
                                      double subtract_value, int64_t pool) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(weight.is_cuda() && conv_bias.is_cuda(), "parameters must be CUDA tensors");
    TORCH_CHECK(x.is_contiguous() && weight.is_contiguous() && conv_bias.is_contiguous(),
                "contiguous tensors required");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "float32 only");
    TORCH_CHECK(x.dim() == 4, "x must be [B, C_in, H, W]");
    TORCH_CHECK(weight.dim() == 4 && weight.size(1) == x.size(1), "weight must be [C_out, C_in, K, K]");
    TORCH_CHECK(weight.size(2) == weight.size(3), "square kernels only");
    TORCH_CHECK(pool >= 1, "pool size must be positive");

    const int B = (int)x.size(0);
    const int C_in = (int)x.size(1);
    const int H = (int)x.size(2);
    const int W = (int)x.size(3);
    const int C_out = (int)weight.size(0);
    const int K = (int)weight.size(2);
    const int P = (int)pool;
    TORCH_CHECK(conv_bias.numel() == C_out, "conv bias must have C_out elements");
    TORCH_CHECK(H >= K && W >= K, "input smaller than the kernel");
    const int H_pool = (H - K + 1) / P;
    const int W_pool = (W - K + 1) / P;
    TORCH_CHECK(H_pool >= 1 && W_pool >= 1, "pooling window larger than the convolution output");

    torch::Tensor y = torch::empty({B, C_out, H_pool, W_pool}, x.options());

    const int tpo = (P >= kTileTarget) ? 1 : kTileTarget / P;   // pooled outputs per tile side
    const int T = tpo * P;
    const int in_t = T + K - 1;
    const size_t smem = (size_t)(kCoPerBlock * T * T + in_t * in_t + kCoPerBlock * K * K) * sizeof(float);
    TORCH_CHECK(smem <= 48 * 1024, "pool window or kernel too large for the shared-memory tile");
    const int co_groups = (C_out + kCoPerBlock - 1) / kCoPerBlock;
    TORCH_CHECK((long long)B * co_groups <= 65535, "B * ceil(C_out / 4) exceeds gridDim.z");

    const dim3 grid((W_pool + tpo - 1) / tpo, (H_pool + tpo - 1) / tpo, B * co_groups);
    cshm_smem_accum_kernel<<<grid, kThreads, smem, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), weight.data_ptr<float>(), conv_bias.data_ptr<float>(), y.data_ptr<float>(),
        C_in, H, W, C_out, K, P, T, H_pool, W_pool, co_groups, (float)subtract_value);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
