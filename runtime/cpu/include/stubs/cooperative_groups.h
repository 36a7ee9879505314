// CPU backend: CUDA's cooperative groups for a block and its warps, built on the emulator's own
// barriers and warp collectives (kaudit_cpu/cuda_builtins.h), so that a group's sync, shuffle or
// vote is the same event in the emulator's schedule as the intrinsic it stands for. What is here:
// this_thread_block(), tiled_partition<N>() of a block or a larger tile (N a power of two, at most
// 32), and the members kernels use on them (sync, thread_rank, size, num_threads,
// meta_group_rank/size, shfl, shfl_up/down/xor, any, all, ballot), cg::sync(g), and cg::reduce in
// <cooperative_groups/reduce.h>. What is not: grid and multi-grid groups (a grid-wide barrier needs
// a cooperative launch, which the emulator does not run), coalesced_threads() (the emulator keeps
// a warp's lanes converged, so it cannot say which lanes took a branch: __activemask() is all 32),
// tiled_partition(g, n) with a run-time size, memcpy_async, and shuffles of types wider than 8
// bytes: a kernel using them does not build here, rather than build with other semantics.
// Lowering (runtime/cpu/lower.cpp) runs every TU that names cooperative_groups on fibers.
#pragma once
#ifndef KAUDIT_CPU_PRELUDE_H  // already there when it came precompiled
#include <kaudit_cpu/prelude.h>
#endif

namespace cooperative_groups {

class thread_block {
 public:
  // The call site's line, as __syncthreads() gives it: witness mode tells barriers apart by it.
  void sync(int line = __builtin_LINE()) const { ::kaudit::rt::syncthreads(line, 1, 0); }
  unsigned thread_rank() const { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
  unsigned size() const { return blockDim.x * blockDim.y * blockDim.z; }
  unsigned num_threads() const { return size(); }
  dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  dim3 group_dim() const { return dim3(blockDim.x, blockDim.y, blockDim.z); }
  dim3 dim_threads() const { return group_dim(); }
};
inline thread_block this_thread_block() { return {}; }

namespace detail {
// The calling thread's lane in its warp: warps are 32 consecutive thread ranks of the block.
inline unsigned lane() { return (unsigned)(this_thread_block().thread_rank() % 32); }
}  // namespace detail

// A tile of N consecutive threads of a block (N = 1, 2, 4, 8, 16 or 32): a warp or part of one.
// A tile partitioned from a larger tile counts its meta group within that tile, as in CUDA
// (whose thread_block_tile<N, ParentT> converts to thread_block_tile<N> keeping that). Sizes and
// ranks are unsigned int, as in CUDA (`tile.thread_rank() - 1` wraps the same way).
template <unsigned N, class ParentT = void>
class thread_block_tile {
  static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0, "kaudit CPU backend: tiles of 1, 2, 4, 8, 16 or 32 threads");

 public:
  thread_block_tile() = default;
  explicit thread_block_tile(unsigned parent) : parent_(parent) {}
  template <class Q>
  thread_block_tile(const thread_block_tile<N, Q>& other) : parent_(other.parent_size()) {}

  // The lanes of the calling thread's tile, as the mask of the warp intrinsics.
  static unsigned mask() {
    const unsigned base = detail::lane() / N * N;
    return N == 32 ? 0xffffffffu : (((1u << N) - 1u) << base);
  }
  // The size of the tile this one was partitioned from (0: the block).
  unsigned parent_size() const { return parent_; }
  void sync() const { __syncwarp(mask()); }
  unsigned thread_rank() const { return detail::lane() % N; }
  unsigned size() const { return N; }
  unsigned num_threads() const { return N; }
  unsigned meta_group_rank() const {
    return parent_ ? detail::lane() % parent_ / N : this_thread_block().thread_rank() / N;
  }
  unsigned meta_group_size() const { return parent_ ? parent_ / N : (this_thread_block().size() + N - 1) / N; }
  template <class T> T shfl(T v, int src_rank) const { return __shfl_sync(mask(), v, src_rank, N); }
  template <class T> T shfl_up(T v, unsigned delta) const { return __shfl_up_sync(mask(), v, delta, N); }
  template <class T> T shfl_down(T v, unsigned delta) const { return __shfl_down_sync(mask(), v, delta, N); }
  template <class T> T shfl_xor(T v, unsigned lane_mask) const { return __shfl_xor_sync(mask(), v, (int)lane_mask, N); }
  int any(int pred) const { return __any_sync(mask(), pred); }
  int all(int pred) const { return __all_sync(mask(), pred); }
  // Bit i for the tile's thread of rank i, as on the GPU.
  unsigned ballot(int pred) const {
    return (__ballot_sync(mask(), pred) >> (detail::lane() / N * N)) & (N == 32 ? 0xffffffffu : (1u << N) - 1u);
  }

 private:
  unsigned parent_ = 0;
};

template <unsigned N>
inline thread_block_tile<N> tiled_partition(const thread_block&) {
  return {};
}
template <unsigned N, unsigned M, class Q>
inline thread_block_tile<N, thread_block_tile<M, Q>> tiled_partition(const thread_block_tile<M, Q>&) {
  static_assert(N <= M, "a tile is partitioned into smaller tiles");
  return thread_block_tile<N, thread_block_tile<M, Q>>(M);
}

template <class Group>
inline void sync(const Group& g) {
  g.sync();
}
inline void sync(const thread_block&, int line = __builtin_LINE()) { ::kaudit::rt::syncthreads(line, 1, 0); }

}  // namespace cooperative_groups
