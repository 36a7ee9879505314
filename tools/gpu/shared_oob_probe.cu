// Where does an out-of-bounds shared-memory access fault on this GPU? Oracle mode must say which
// reads and writes past a __shared__ buffer a real harness sees as a crash (an illegal-address
// error that ends the context) and which read or write the block's neighbouring bytes silently.
// Usage: shared_oob_probe KIND SIZE_FLOATS OFFSET_FLOATS
//   KIND: static-read, static-write (a __shared__ float[SIZE] with SIZE in {256, 1000, 1100, 2100}),
//         dynamic-read, dynamic-write (extern __shared__ of SIZE floats given at launch)
// One access per process (a fault breaks the context). Prints "KIND SIZE OFFSET ok|fault: why".
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

template <int N>
__global__ void static_read(int off, float* out) {
  __shared__ float s[N];
  for (int i = threadIdx.x; i < N; i += blockDim.x) s[i] = 1.0f;
  __syncthreads();
  if (threadIdx.x == 0) out[0] = s[off];
}
template <int N>
__global__ void static_write(int off, float* out) {
  __shared__ float s[N];
  for (int i = threadIdx.x; i < N; i += blockDim.x) s[i] = 1.0f;
  __syncthreads();
  if (threadIdx.x == 0) s[off] = 2.0f;
  __syncthreads();
  if (threadIdx.x == 0) out[0] = s[0];
}
__global__ void dynamic_read(int off, float* out) {
  extern __shared__ float d[];
  if (threadIdx.x == 0) out[0] = d[off];
}
__global__ void dynamic_write(int off, float* out) {
  extern __shared__ float d[];
  if (threadIdx.x == 0) d[off] = 2.0f;
  __syncthreads();
  if (threadIdx.x == 0) out[0] = d[0];
}

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s KIND SIZE_FLOATS OFFSET_FLOATS\n", argv[0]);
    return 2;
  }
  const char* kind = argv[1];
  const int size = std::atoi(argv[2]);
  const int off = std::atoi(argv[3]);
  float* out = nullptr;
  if (cudaMalloc(&out, sizeof(float)) != cudaSuccess) return 3;
  const dim3 grid(132 * 4), block(128);
  if (!std::strcmp(kind, "static-read")) {
    if (size == 256) static_read<256><<<grid, block>>>(off, out);
    else if (size == 1000) static_read<1000><<<grid, block>>>(off, out);
    else if (size == 1100) static_read<1100><<<grid, block>>>(off, out);
    else static_read<2100><<<grid, block>>>(off, out);
  } else if (!std::strcmp(kind, "static-write")) {
    if (size == 256) static_write<256><<<grid, block>>>(off, out);
    else if (size == 1000) static_write<1000><<<grid, block>>>(off, out);
    else if (size == 1100) static_write<1100><<<grid, block>>>(off, out);
    else static_write<2100><<<grid, block>>>(off, out);
  } else if (!std::strcmp(kind, "dynamic-read")) {
    dynamic_read<<<grid, block, size * sizeof(float)>>>(off, out);
  } else if (!std::strcmp(kind, "dynamic-write")) {
    dynamic_write<<<grid, block, size * sizeof(float)>>>(off, out);
  } else {
    return 2;
  }
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  std::printf("%s %d %d %s%s%s\n", kind, size, off, e == cudaSuccess ? "ok" : "fault: ",
              e == cudaSuccess ? "" : cudaGetErrorName(e), "");
  return 0;
}
