#include <cuda_runtime.h>
__global__ void fill(float* p, int n, float v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v;
}
extern "C" int run(float* p, int n) {
  fill<<<(n + 127) / 128, 128>>>(p, n, 3.0f);
  fill<<<dim3(2, 3), 64>>>(p, n, 4.0f);
  return (int)cudaDeviceSynchronize();
}
