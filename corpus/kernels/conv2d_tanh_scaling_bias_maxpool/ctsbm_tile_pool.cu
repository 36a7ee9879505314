#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

#define TP_BLOCK 16   // the block is TP_BLOCK x TP_BLOCK threads
#define TP_COPB 4     // output channels per block

// Tiled convolution with the whole tail in the epilogue. A block owns a T x T tile of
// convolution outputs (T = P * floor(16 / P), so the tile holds whole pooling windows) for
// TP_COPB output channels of one sample; thread (ty, tx) with tx, ty < T computes one conv output
// for those channels. Per input channel the (T + K - 1)^2 input patch (with its right/bottom halo)
// and the filters are staged in shared memory. The epilogue writes tanh(acc) * scale + bias into a
// shared activation tile, then threads take the max over each P x P window of it.
// Dynamic shared memory: patch [(T+K-1)^2] | filt [COPB*K*K] | act [COPB*T*T].
__global__ void ctsbm_tile_pool_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                       const float* __restrict__ conv_bias, const float* __restrict__ bias,
                                       float* __restrict__ y,
                                       int C_in, int H, int W, int C_out, int K, int P, int T,
                                       int H_pool, int W_pool, int co_groups, float scale) {
    extern __shared__ float smem[];
    const int in_t = T + K - 1;
    const int kk2 = K * K;
    float* patch = smem;
    float* filt = patch + in_t * in_t;
    float* act = filt + TP_COPB * kk2;

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int tid = ty * TP_BLOCK + tx;
    const int nthreads = TP_BLOCK * TP_BLOCK;
    const int n = blockIdx.z / co_groups;
    const int co0 = (blockIdx.z % co_groups) * TP_COPB;
    const int oh0 = blockIdx.y * T;        // conv-output origin of the tile
    const int ow0 = blockIdx.x * T;
    const bool active = (tx < T) && (ty < T);

    float acc[TP_COPB];
    #pragma unroll
    for (int c = 0; c < TP_COPB; ++c) acc[c] = 0.0f;

    for (int ci = 0; ci < C_in; ++ci) {
        const float* plane = x + ((size_t)n * C_in + ci) * H * W;
        for (int e = tid; e < in_t * in_t; e += nthreads) {
            const int r = e / in_t;
            const int c = e % in_t;
            const int gr = oh0 + r;
            const int gc = ow0 + c;
            // Past the edge: feeds only conv outputs that no stored window reads.
            patch[e] = (gr < H && gc < W) ? plane[(size_t)gr * W + gc] : 0.0f;
        }
        for (int e = tid; e < TP_COPB * kk2; e += nthreads) {
            const int c = e / kk2;
            const int co = co0 + c;
            filt[e] = (co < C_out) ? w[((size_t)co * C_in + ci) * kk2 + (e % kk2)] : 0.0f;
        }
        __syncthreads();

        if (active) {
            for (int kh = 0; kh < K; ++kh) {
                for (int kw = 0; kw < K; ++kw) {
                    const float v = patch[(ty + kh) * in_t + (tx + kw)];
                    #pragma unroll
                    for (int c = 0; c < TP_COPB; ++c) {
                        acc[c] += v * filt[c * kk2 + kh * K + kw];
                    }
                }
            }
        }
        __syncthreads();
    }

    // Epilogue, step 1: the elementwise tail into the shared activation tile.
    if (active) {
        #pragma unroll
        for (int c = 0; c < TP_COPB; ++c) {
            const int co = co0 + c;
            float v = 0.0f;
            if (co < C_out) {
                v = tanhf(acc[c] + conv_bias[co]) * scale + bias[co];
            }
            act[(c * T + ty) * T + tx] = v;
        }
    }
    __syncthreads();

    // Step 2: max over each P x P window of the tile; (T / P)^2 windows per channel.
    const int tpo = T / P;
    for (int e = tid; e < TP_COPB * tpo * tpo; e += nthreads) {
        const int c = e / (tpo * tpo);
        const int r = e % (tpo * tpo);
        const int py = r / tpo;
        const int px = r % tpo;
        const int co = co0 + c;
        const int ph = blockIdx.y * tpo + py;
        const int pw = blockIdx.x * tpo + px;
        if (co >= C_out || ph >= H_pool || pw >= W_pool) continue;
        float m = __int_as_float(0xff800000);  // -inf
        for (int dy = 0; dy < P; ++dy) {
            for (int dx = 0; dx < P; ++dx) {
                m = fmaxf(m, act[(c * T + py * P + dy) * T + px * P + dx]);
            }
        }
        y[(((size_t)n * C_out + co) * H_pool + ph) * W_pool + pw] = m;
    }
}

// ---- host ----
torch::Tensor ctsbm_tile_pool_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor conv_bias,
                                      torch::Tensor bias, double scaling_factor, int64_t pool) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(weight.is_cuda() && conv_bias.is_cuda() && bias.is_cuda(), "parameters must be CUDA tensors");
    TORCH_CHECK(x.is_contiguous() && weight.is_contiguous() && conv_bias.is_contiguous() && bias.is_contiguous(),
                "contiguous tensors required");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "float32 only");
    TORCH_CHECK(x.dim() == 4, "x must be [B, C_in, H, W]");
    TORCH_CHECK(weight.dim() == 4 && weight.size(1) == x.size(1), "weight must be [C_out, C_in, K, K]");
    TORCH_CHECK(weight.size(2) == weight.size(3), "square kernels only");
    TORCH_CHECK(pool >= 1 && pool <= TP_BLOCK, "pool size must be in [1, 16]");

    const int B = (int)x.size(0);
    const int C_in = (int)x.size(1);
    const int H = (int)x.size(2);
    const int W = (int)x.size(3);
    const int C_out = (int)weight.size(0);
    const int K = (int)weight.size(2);
    const int P = (int)pool;
    TORCH_CHECK(conv_bias.numel() == C_out, "conv bias must have C_out elements");
    TORCH_CHECK(bias.numel() == C_out, "bias must have C_out elements ([C_out, 1, 1])");
    TORCH_CHECK(H >= K && W >= K, "input smaller than the kernel");
    const int H_pool = (H - K + 1) / P;
    const int W_pool = (W - K + 1) / P;
    TORCH_CHECK(H_pool >= 1 && W_pool >= 1, "pooling window larger than the convolution output");

    torch::Tensor y = torch::empty({B, C_out, H_pool, W_pool}, x.options());

    const int T = P * (TP_BLOCK / P);     // largest multiple of P that fits the block side
    const int tpo = T / P;                // pooled outputs per tile side
    const int co_groups = (C_out + TP_COPB - 1) / TP_COPB;
    TORCH_CHECK((long long)B * co_groups <= 65535, "B * ceil(C_out / 4) exceeds gridDim.z");
    const int in_t = T + K - 1;
    const size_t smem = (size_t)(in_t * in_t + TP_COPB * K * K + TP_COPB * T * T) * sizeof(float);
    TORCH_CHECK(smem <= 48 * 1024, "kernel too large for the shared-memory tile");

    const dim3 block(TP_BLOCK, TP_BLOCK);
    const dim3 grid((W_pool + tpo - 1) / tpo, (H_pool + tpo - 1) / tpo, B * co_groups);
    ctsbm_tile_pool_kernel<<<grid, block, smem, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), weight.data_ptr<float>(), conv_bias.data_ptr<float>(), bias.data_ptr<float>(),
        y.data_ptr<float>(), C_in, H, W, C_out, K, P, T, H_pool, W_pool, co_groups, (float)scaling_factor);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
