#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// 3x3 / stride 2 / padding 1 average pooling with a 3-D grid: x and y tile the output plane in
// 32 x 8 blocks, z walks the N*C planes. Neighbouring windows overlap (stride < window), so each
// block first copies the input patch its outputs read, halo included, into shared memory, writing
// zeros where the patch lies in the padding or past the input; the window sums then need no
// bounds checks. count_include_pad=True: every sum is divided by the full 9.
constexpr int AP_K = 3;
constexpr int AP_S = 2;
constexpr int AP_P = 1;
constexpr int AP_TW = 32;                        // outputs per block along W (blockDim.x)
constexpr int AP_TH = 8;                         // outputs per block along H (blockDim.y)
constexpr int AP_IW = (AP_TW - 1) * AP_S + AP_K;  // 65 input columns
constexpr int AP_IH = (AP_TH - 1) * AP_S + AP_K;  // 17 input rows
constexpr int AP_MAX_Z = 65535;

__global__ void avgpool2d_smem_halo_kernel(const float* __restrict__ in, float* __restrict__ out,
                                           int planes, int H, int W, int H_out, int W_out) {
    __shared__ float patch[AP_IH][AP_IW];

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * AP_TW + tx;
    const int ow = blockIdx.x * AP_TW + tx;
    const int oh = blockIdx.y * AP_TH + ty;
    // Input coordinates of the patch's top-left cell (may be -1: the padding).
    const int ih0 = blockIdx.y * AP_TH * AP_S - AP_P;
    const int iw0 = blockIdx.x * AP_TW * AP_S - AP_P;

    for (int p = blockIdx.z; p < planes; p += gridDim.z) {
        const float* src = in + (long long)p * H * W;
        for (int l = tid; l < AP_IH * AP_IW; l += AP_TW * AP_TH) {
            const int r = l / AP_IW, c = l % AP_IW;
            const int h = ih0 + r, w = iw0 + c;
            patch[r][c] = (h >= 0 && h < H && w >= 0 && w < W) ? src[(long long)h * W + w] : 0.0f;
        }
        __syncthreads();

        if (oh < H_out && ow < W_out) {
            float sum = 0.0f;
            #pragma unroll
            for (int i = 0; i < AP_K; ++i)
                #pragma unroll
                for (int j = 0; j < AP_K; ++j) sum += patch[ty * AP_S + i][tx * AP_S + j];
            out[((long long)p * H_out + oh) * W_out + ow] = sum * (1.0f / (AP_K * AP_K));
        }
        __syncthreads();  // the patch is reloaded for the next plane only after everyone read it
    }
}

// ---- host ----
torch::Tensor avgpool2d_smem_halo_forward(torch::Tensor x, int64_t kernel_size, int64_t stride, int64_t padding) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous (NCHW)");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    TORCH_CHECK(x.dim() == 4, "x must be [B, C, H, W]");
    TORCH_CHECK(kernel_size == AP_K && stride == AP_S && padding == AP_P,
                "this kernel implements kernel_size=3, stride=2, padding=1 only");

    const int B = (int)x.size(0), C = (int)x.size(1), H = (int)x.size(2), W = (int)x.size(3);
    const int H_out = (H + 2 * AP_P - AP_K) / AP_S + 1;
    const int W_out = (W + 2 * AP_P - AP_K) / AP_S + 1;
    auto out = torch::empty({B, C, H_out, W_out}, x.options());
    const int planes = B * C;
    if (planes == 0 || H_out <= 0 || W_out <= 0) return out;

    const dim3 block(AP_TW, AP_TH);
    const dim3 grid((W_out + AP_TW - 1) / AP_TW, (H_out + AP_TH - 1) / AP_TH,
                    planes < AP_MAX_Z ? planes : AP_MAX_Z);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    avgpool2d_smem_halo_kernel<<<grid, block, 0, stream>>>(x.data_ptr<float>(), out.data_ptr<float>(),
                                                          planes, H, W, H_out, W_out);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "avgpool2d_smem_halo_kernel launch failed: ", cudaGetErrorString(err));
    return out;
}
