// Does a shared-memory tree reduction whose in-loop barrier is missing give a wrong sum on a GPU,
// and does it depend on how many blocks share an SM? Oracle mode's race model (docs/ORACLES.md,
// "Races") runs one block at a time and found such a tree benign, as the H200 showed for
// softmax_block_smem (32 blocks at `small`); mse_smem_atomic's tree mutants (1,024 blocks of 256
// threads, about 8 per SM) fail on the H200 in every repetition at atol 1e-4 (docs/calibration/
// h200-2026-12-01). This probe runs one tree, with and without its barriers, at grid sizes from
// well under one block per SM to many, and counts the blocks whose sum is wrong and the warps that
// read the tree's root (sdata[0]) before the tree has finished (what softmax's idle warps do when
// the barrier is missing: they read `red[0]` right after the loop).
// Inputs are small integers, so every summation order gives the exact sum: a wrong sum is a race.
// Usage: tree_race_probe  (prints one line per variant and grid size)
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

enum Variant { kBarriers = 0, kNoLoopBarrier = 1, kSyncwarpInLoop = 2 };

// The variant is a template argument, so each kernel is compiled as the mutant would be (no
// barrier in the loop at all, not one behind a run-time branch).
template <int BLOCK, int VARIANT>
__global__ void tree(const float* in, float* block_sum, float* root_read) {
  __shared__ float sdata[BLOCK];
  const int tid = threadIdx.x;
  sdata[tid] = in[(size_t)blockIdx.x * BLOCK + tid];
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    if (VARIANT == kBarriers) __syncthreads();
    else if (VARIANT == kSyncwarpInLoop) __syncwarp();
  }
  const float root = sdata[0];  // what a thread reads right after its loop (softmax's row_max)
  if ((tid & 31) == 0) root_read[(size_t)blockIdx.x * (BLOCK / 32) + tid / 32] = root;
  __syncthreads();
  if (tid == 0) block_sum[blockIdx.x] = sdata[0];
}

int main() {
  constexpr int kBlock = 256, kWarps = kBlock / 32, kReps = 20;
  const int grids[] = {32, 132, 264, 528, 1056, 2112, 8448};
  const int max_grid = 8448;
  std::vector<float> host((size_t)max_grid * kBlock);
  for (size_t i = 0; i < host.size(); ++i) host[i] = float((i * 7 + i / 3) % 5);
  std::vector<float> expected(max_grid, 0.0f);
  for (int b = 0; b < max_grid; ++b)
    for (int t = 0; t < kBlock; ++t) expected[b] += host[(size_t)b * kBlock + t];
  float *in, *sums, *roots;
  if (cudaMalloc(&in, host.size() * 4) || cudaMalloc(&sums, max_grid * 4) || cudaMalloc(&roots, max_grid * kWarps * 4))
    return 3;
  cudaMemcpy(in, host.data(), host.size() * 4, cudaMemcpyHostToDevice);
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  std::printf("# %s, %d SMs; block %d threads; %d launches per line\n", prop.name, prop.multiProcessorCount, kBlock, kReps);
  std::printf("# variant grid blocks_per_sm wrong_blocks/blocks stale_root_warps/warps launches_with_a_wrong_block"
              " stale-share-bins (a stale root's share of the sum: >=1/2 >=1/4 >=1/8 >=1/16 >=1/32 less)\n");
  const char* names[] = {"barriers", "no-loop-barrier", "syncwarp-in-loop"};
  std::vector<float> got_sums(max_grid), got_roots((size_t)max_grid * kWarps);
  for (int variant = 0; variant < 3; ++variant) {
    for (int grid : grids) {
      long wrong = 0, stale = 0;
      long bins[6] = {0, 0, 0, 0, 0, 0};  // a stale root's share of the block's sum: >=1/2, 1/4, 1/8, 1/16, 1/32, less
      int bad_launches = 0;
      for (int rep = 0; rep < kReps; ++rep) {
        if (variant == kBarriers) tree<kBlock, kBarriers><<<grid, kBlock>>>(in, sums, roots);
        else if (variant == kNoLoopBarrier) tree<kBlock, kNoLoopBarrier><<<grid, kBlock>>>(in, sums, roots);
        else tree<kBlock, kSyncwarpInLoop><<<grid, kBlock>>>(in, sums, roots);
        if (cudaDeviceSynchronize() != cudaSuccess) {
          std::printf("%s %d launch-failed\n", names[variant], grid);
          return 4;
        }
        cudaMemcpy(got_sums.data(), sums, grid * 4, cudaMemcpyDeviceToHost);
        cudaMemcpy(got_roots.data(), roots, (size_t)grid * kWarps * 4, cudaMemcpyDeviceToHost);
        long wrong_here = 0;
        for (int b = 0; b < grid; ++b) {
          wrong_here += got_sums[b] != expected[b];
          for (int w = 0; w < kWarps; ++w) {
            const float r = got_roots[(size_t)b * kWarps + w];
            if (r == got_sums[b]) continue;
            ++stale;
            int bin = 0;
            for (double share = r / expected[b]; bin < 5 && share < 0.5 / (1 << bin); ++bin) {}
            ++bins[bin];
          }
        }
        wrong += wrong_here;
        bad_launches += wrong_here > 0;
      }
      std::printf("%s %d %.2f %ld/%ld %ld/%ld %d/%d stale-share-bins %ld %ld %ld %ld %ld %ld\n", names[variant], grid,
                  double(grid) / prop.multiProcessorCount, wrong, (long)grid * kReps, stale, (long)grid * kWarps * kReps,
                  bad_launches, kReps, bins[0], bins[1], bins[2], bins[3], bins[4], bins[5]);
    }
  }
  return 0;
}
