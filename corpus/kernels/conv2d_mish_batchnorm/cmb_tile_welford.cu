#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

#define CMB_TILE 16                       // 16 x 16 output pixels per block, one per thread
#define CMB_COPB 4                        // output channels per block
#define CMB_WARPS (CMB_TILE * CMB_TILE / 32)
#define CMB_FIN_THREADS 256

__device__ __forceinline__ float mish_f(float v) {
    const float sp = (v > 20.0f) ? v : log1pf(expf(v));  // softplus, torch's threshold 20
    return v * tanhf(sp);
}

// Chan et al.'s merge of the state (nb, mb, qb) into (n, m, q) (count, mean, sum of squared
// deviations). An empty side leaves the other unchanged.
__device__ __forceinline__ void chan_merge(float& n, float& m, float& q, float nb, float mb, float qb) {
    const float nt = n + nb;
    if (nb == 0.0f) return;
    const float delta = mb - m;
    const float wb = nb / nt;
    m += delta * wb;
    q += qb + delta * delta * n * wb;
    n = nt;
}

__device__ __forceinline__ void warp_chan(float& n, float& m, float& q) {
    #pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        const float nb = __shfl_down_sync(0xffffffffu, n, off);
        const float mb = __shfl_down_sync(0xffffffffu, m, off);
        const float qb = __shfl_down_sync(0xffffffffu, q, off);
        chan_merge(n, m, q, nb, mb, qb);
    }
}

// Kernel 1: tiled convolution (16x16 outputs x 4 channels of one sample per block; per input
// channel the 18x18-ish patch with its K - 1 halo and the filters in dynamic shared memory),
// epilogue Mish -> y, and the block's share of the batch statistics: for each of its channels the
// (count, mean, M2) of its valid pixels, merged across lanes with shuffles and across warps in
// shared memory, stored as one partial per (channel, block). Pixels past H_out / W_out count 0.
__global__ void cmb_tile_conv_mish_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                          const float* __restrict__ conv_bias, float* __restrict__ y,
                                          float* __restrict__ partials,
                                          int C_in, int H, int W, int C_out, int K, int H_out, int W_out,
                                          int co_groups, int n_parts) {
    extern __shared__ float smem[];
    __shared__ float w_n[CMB_COPB][CMB_WARPS];
    __shared__ float w_m[CMB_COPB][CMB_WARPS];
    __shared__ float w_q[CMB_COPB][CMB_WARPS];
    const int in_t = CMB_TILE + K - 1;
    const int kk2 = K * K;
    float* patch = smem;
    float* filt = smem + in_t * in_t;

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int tid = ty * CMB_TILE + tx;
    const int lane = tid & 31;
    const int warp = tid >> 5;
    const int nthreads = CMB_TILE * CMB_TILE;
    const int n = blockIdx.z / co_groups;
    const int co0 = (blockIdx.z % co_groups) * CMB_COPB;
    const int oh0 = blockIdx.y * CMB_TILE;
    const int ow0 = blockIdx.x * CMB_TILE;
    const int oh = oh0 + ty;
    const int ow = ow0 + tx;
    const bool valid = (oh < H_out) && (ow < W_out);

    float acc[CMB_COPB];
    #pragma unroll
    for (int c = 0; c < CMB_COPB; ++c) acc[c] = 0.0f;

    for (int ci = 0; ci < C_in; ++ci) {
        const float* plane = x + ((size_t)n * C_in + ci) * H * W;
        for (int e = tid; e < in_t * in_t; e += nthreads) {
            const int r = e / in_t;
            const int c = e % in_t;
            const int gr = oh0 + r;
            const int gc = ow0 + c;
            patch[e] = (gr < H && gc < W) ? plane[(size_t)gr * W + gc] : 0.0f;
        }
        for (int e = tid; e < CMB_COPB * kk2; e += nthreads) {
            const int co = co0 + e / kk2;
            filt[e] = (co < C_out) ? w[((size_t)co * C_in + ci) * kk2 + (e % kk2)] : 0.0f;
        }
        __syncthreads();
        for (int kh = 0; kh < K; ++kh) {
            for (int kw = 0; kw < K; ++kw) {
                const float v = patch[(ty + kh) * in_t + (tx + kw)];
                #pragma unroll
                for (int c = 0; c < CMB_COPB; ++c) {
                    acc[c] += v * filt[c * kk2 + kh * K + kw];
                }
            }
        }
        __syncthreads();
    }

    const int part = (n * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    #pragma unroll
    for (int c = 0; c < CMB_COPB; ++c) {
        const int co = co0 + c;
        // Every thread takes part in the shuffles (full mask); out-of-range pixels bring n = 0.
        float sn = 0.0f, sm = 0.0f, sq = 0.0f;
        if (valid && co < C_out) {
            const float a = mish_f(acc[c] + conv_bias[co]);
            y[(((size_t)n * C_out + co) * H_out + oh) * W_out + ow] = a;
            sn = 1.0f;
            sm = a;
        }
        warp_chan(sn, sm, sq);
        if (lane == 0) {
            w_n[c][warp] = sn;
            w_m[c][warp] = sm;
            w_q[c][warp] = sq;
        }
    }
    __syncthreads();

    // Warp c merges the CMB_WARPS warp states of channel c (CMB_COPB <= CMB_WARPS).
    if (warp < CMB_COPB) {
        const int c = warp;
        float sn = 0.0f, sm = 0.0f, sq = 0.0f;
        if (lane < CMB_WARPS) {
            sn = w_n[c][lane];
            sm = w_m[c][lane];
            sq = w_q[c][lane];
        }
        warp_chan(sn, sm, sq);
        const int co = co0 + c;
        if (lane == 0 && co < C_out) {
            float* dst = partials + ((size_t)co * n_parts + part) * 3;
            dst[0] = sn;
            dst[1] = sm;
            dst[2] = sq;
        }
    }
}

// Kernel 2: one block per channel merges its n_parts partial states (strided per thread, then
// shuffles, then one warp over the warp results) and folds BatchNorm into scale and shift.
__global__ void cmb_finalize_kernel(const float* __restrict__ partials, const float* __restrict__ gamma,
                                    const float* __restrict__ beta, float* __restrict__ scale_shift,
                                    int n_parts, float eps) {
    __shared__ float f_n[CMB_FIN_THREADS / 32];
    __shared__ float f_m[CMB_FIN_THREADS / 32];
    __shared__ float f_q[CMB_FIN_THREADS / 32];
    const int c = blockIdx.x;
    const int tid = threadIdx.x;
    const int lane = tid & 31;
    const int warp = tid >> 5;

    float sn = 0.0f, sm = 0.0f, sq = 0.0f;
    for (int i = tid; i < n_parts; i += CMB_FIN_THREADS) {
        const float* p = partials + ((size_t)c * n_parts + i) * 3;
        chan_merge(sn, sm, sq, p[0], p[1], p[2]);
    }
    warp_chan(sn, sm, sq);
    if (lane == 0) {
        f_n[warp] = sn;
        f_m[warp] = sm;
        f_q[warp] = sq;
    }
    __syncthreads();
    if (warp == 0) {
        sn = 0.0f; sm = 0.0f; sq = 0.0f;
        if (lane < CMB_FIN_THREADS / 32) {
            sn = f_n[lane];
            sm = f_m[lane];
            sq = f_q[lane];
        }
        warp_chan(sn, sm, sq);
        if (lane == 0) {
            const float var = sq / sn;  // biased variance over all B * H_out * W_out values
            const float sc = gamma[c] * rsqrtf(var + eps);
            scale_shift[2 * c] = sc;
            scale_shift[2 * c + 1] = beta[c] - sm * sc;
        }
    }
}

// Kernel 3: normalise y in place, one (n, c) plane per blockIdx.y; float4 when every plane starts
// 16-byte aligned (HW % 4 == 0, base pointer aligned), scalar otherwise.
__global__ void cmb_apply_plane_kernel(float* __restrict__ y, const float* __restrict__ scale_shift,
                                       int C, int HW, bool vec4) {
    const int plane = blockIdx.y;
    const int c = plane % C;
    const float sc = scale_shift[2 * c];
    const float sh = scale_shift[2 * c + 1];
    float* yp = y + (size_t)plane * HW;
    const int stride = gridDim.x * blockDim.x;
    if (vec4) {
        float4* y4 = reinterpret_cast<float4*>(yp);
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < HW / 4; i += stride) {
            float4 v = y4[i];
            v.x = v.x * sc + sh;
            v.y = v.y * sc + sh;
            v.z = v.z * sc + sh;
            v.w = v.w * sc + sh;
            y4[i] = v;
        }
    } else {
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < HW; i += stride) {
            yp[i] = yp[i] * sc + sh;
        }
    }
}

// ---- host ----
torch::Tensor cmb_tile_welford_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor conv_bias,
                                       torch::Tensor bn_weight, torch::Tensor bn_bias, double eps) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(weight.is_cuda() && conv_bias.is_cuda() && bn_weight.is_cuda() && bn_bias.is_cuda(),
                "parameters must be CUDA tensors");
    TORCH_CHECK(x.is_contiguous() && weight.is_contiguous() && conv_bias.is_contiguous() &&
                bn_weight.is_contiguous() && bn_bias.is_contiguous(), "contiguous tensors required");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "float32 only");
    TORCH_CHECK(x.dim() == 4, "x must be [B, C_in, H, W]");
    TORCH_CHECK(weight.dim() == 4 && weight.size(1) == x.size(1), "weight must be [C_out, C_in, K, K]");
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

    torch::Tensor y = torch::empty({B, C_out, H_out, W_out}, x.options());

    const int tiles_x = (W_out + CMB_TILE - 1) / CMB_TILE;
    const int tiles_y = (H_out + CMB_TILE - 1) / CMB_TILE;
    const int co_groups = (C_out + CMB_COPB - 1) / CMB_COPB;
    TORCH_CHECK((long long)B * co_groups <= 65535, "B * ceil(C_out / 4) exceeds gridDim.z");
    const long long n_parts_ll = (long long)B * tiles_y * tiles_x;
    TORCH_CHECK(n_parts_ll < (1LL << 31), "too many tiles");
    const int n_parts = (int)n_parts_ll;
    const int in_t = CMB_TILE + K - 1;
    const size_t smem = (size_t)(in_t * in_t + CMB_COPB * K * K) * sizeof(float);
    TORCH_CHECK(smem <= 40 * 1024, "kernel too large for the shared-memory tile");

    auto partials = torch::empty({(long long)C_out * n_parts * 3}, x.options());
    auto scale_shift = torch::empty({2 * C_out}, x.options());
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();

    const dim3 block(CMB_TILE, CMB_TILE);
    const dim3 grid(tiles_x, tiles_y, B * co_groups);
    cmb_tile_conv_mish_kernel<<<grid, block, smem, stream>>>(
        x.data_ptr<float>(), weight.data_ptr<float>(), conv_bias.data_ptr<float>(), y.data_ptr<float>(),
        partials.data_ptr<float>(), C_in, H, W, C_out, K, H_out, W_out, co_groups, n_parts);
    C10_CUDA_KERNEL_LAUNCH_CHECK();

    cmb_finalize_kernel<<<C_out, CMB_FIN_THREADS, 0, stream>>>(
        partials.data_ptr<float>(), bn_weight.data_ptr<float>(), bn_bias.data_ptr<float>(),
        scale_shift.data_ptr<float>(), n_parts, (float)eps);
    C10_CUDA_KERNEL_LAUNCH_CHECK();

    const bool vec4 = (HW % 4 == 0) && (reinterpret_cast<uintptr_t>(y.data_ptr<float>()) % 16 == 0);
    const int work = vec4 ? HW / 4 : HW;
    const int threads = 256;
    int bx = (work + threads - 1) / threads;
    if (bx > 64) bx = 64;  // the kernel strides over the rest of the plane
    TORCH_CHECK((long long)B * C_out <= 65535, "B * C_out exceeds gridDim.y");
    const dim3 grid3(bx, B * C_out);
    cmb_apply_plane_kernel<<<grid3, threads, 0, stream>>>(
        y.data_ptr<float>(), scale_shift.data_ptr<float>(), C_out, HW, vec4);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
