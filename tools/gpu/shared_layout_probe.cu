// How does a block lay out several shared-memory buffers, and where is its window's end then?
// tools/gpu/shared_oob_probe.cu measured one buffer per block (docs/calibration/
// h200-2026-12-03-smem: the window runs from 1 KiB before the buffer to its size rounded up to 128
// bytes). Oracle mode's model of out-of-bounds shared accesses (docs/ORACLES.md, "Shared memory")
// also needs: whether a read past the first of two static buffers reaches the second (and so
// which comes first), and whether dynamic shared memory follows the static buffers in the same
// window. Each buffer is filled with its own value, so a silent read says whose bytes it reached.
// Usage: shared_layout_probe KIND OFFSET_FLOATS
//   two-static-a      __shared__ float a[1000], b[100] (b declared second): read a[OFFSET]
//   two-static-b      the same kernel: read b[OFFSET]
//   static-dynamic-a  __shared__ float a[1000] and 100 floats of dynamic shared memory: read a[OFFSET]
//   static-dynamic-d  the same kernel: read the dynamic buffer at OFFSET
// One access per process (a fault breaks the context). Prints "KIND OFFSET ok VALUE" or
// "KIND OFFSET fault: ERROR".
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

__global__ void two_static(int which, int off, float* out) {
  __shared__ float a[1000];
  __shared__ float b[100];
  for (int i = threadIdx.x; i < 1000; i += blockDim.x) a[i] = 1.0f;
  for (int i = threadIdx.x; i < 100; i += blockDim.x) b[i] = 7.0f;
  __syncthreads();
  if (threadIdx.x == 0 && blockIdx.x == 0) out[0] = which == 0 ? a[off] : b[off];
  else if (threadIdx.x == 0) out[1 + blockIdx.x % 8] = which == 0 ? a[off] : b[off];
}
__global__ void static_dynamic(int which, int off, float* out) {
  __shared__ float a[1000];
  extern __shared__ float d[];
  for (int i = threadIdx.x; i < 1000; i += blockDim.x) a[i] = 1.0f;
  for (int i = threadIdx.x; i < 100; i += blockDim.x) d[i] = 9.0f;
  __syncthreads();
  if (threadIdx.x == 0 && blockIdx.x == 0) out[0] = which == 0 ? a[off] : d[off];
  else if (threadIdx.x == 0) out[1 + blockIdx.x % 8] = which == 0 ? a[off] : d[off];
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s KIND OFFSET_FLOATS\n", argv[0]);
    return 2;
  }
  const char* kind = argv[1];
  const int off = std::atoi(argv[2]);
  float* out = nullptr;
  if (cudaMalloc(&out, 16 * sizeof(float)) != cudaSuccess) return 3;
  const dim3 grid(132 * 4), block(128);
  if (!std::strcmp(kind, "two-static-a")) two_static<<<grid, block>>>(0, off, out);
  else if (!std::strcmp(kind, "two-static-b")) two_static<<<grid, block>>>(1, off, out);
  else if (!std::strcmp(kind, "static-dynamic-a")) static_dynamic<<<grid, block, 100 * sizeof(float)>>>(0, off, out);
  else if (!std::strcmp(kind, "static-dynamic-d")) static_dynamic<<<grid, block, 100 * sizeof(float)>>>(1, off, out);
  else return 2;
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  float value = 0.0f;
  if (e == cudaSuccess) e = cudaMemcpy(&value, out, sizeof(float), cudaMemcpyDeviceToHost);
  if (e == cudaSuccess) std::printf("%s %d ok %g\n", kind, off, value);
  else std::printf("%s %d fault: %s\n", kind, off, cudaGetErrorName(e));
  return 0;
}
