#pragma once
// Tensors whose bytes live in a file a worker can be handed instead of the bytes.
//
// An audit sends the same pool tensors (inputs, references, a reference forward's recorded
// allocations) to its workers thousands of times. At native shapes each is hundreds of MB: on the
// H200 (docs/calibration/h200-2026-12-03-v0d) writing them down the workers' pipes, and the
// run-memory budget that copies in flight need, took more of the runners' time than the runs.
// A pool tensor kept with share_in_memfd() lives in a sealed memfd (no write, grow or shrink, ever,
// by anyone); spill_file_tensor() wraps a file opened read-only. A request carries such a tensor as
// its descriptor (runtime/worker.cpp, SCM_RIGHTS on the request socket), and the worker maps it
// read-only: no copy, no budget, and a run cannot change what the next run reads, since neither
// the descriptor nor the mapping allows a write and a sealed file cannot be unsealed.
//
// Only how the bytes travel changes, never what a tensor holds, so no verdict depends on this.
#include <ATen/core/Tensor.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace kaudit::runtime {

// Whether pool tensors are shared at all: KAUDIT_SHARE_POOL=0 sends every tensor as bytes, as
// before, to measure what sharing saves and to check that it changes no verdict.
bool sharing_enabled();

// Whether this process may keep descriptor `fd` open for a tensor's life and still have room for
// what it must open later (a worker's pipes, a compiler's output). The first call raises the soft
// descriptor limit to the hard one.
bool can_keep_descriptor(int fd);

// A contiguous copy of `t` in a sealed memfd, mapped privately in this process (a write here stays
// here, as with any tensor; the file never changes). Returns `t` itself where no memfd can be had
// (no descriptors to spare, no memfd on this kernel): such a tensor travels as bytes.
at::Tensor share_in_memfd(const at::Tensor& t);

// A tensor over `map` (`bytes` mapped from a file that is not sealed: a spill file), registered
// with `read_only_fd`, a descriptor of the same file that allows no write: the tensor owns both
// (munmap and close when it goes).
at::Tensor shared_file_tensor(void* map, std::size_t bytes, int read_only_fd, at::IntArrayRef sizes,
                              at::IntArrayRef strides, const at::TensorOptions& options);

// Where a tensor's bytes can be handed over as a file: the descriptor (read-only, owned by the
// tensor's storage, valid while the tensor lives), the byte offset of its first element, and
// whether the file is sealed. An unsealed file (a spill file) is protected only by its
// descriptor's mode, which a process of the same user, or root, can get around by opening
// /proc/self/fd/N again: it goes only to a CPU worker's zygote, which runs no kernel code, never
// to a CUDA worker, whose process runs every kernel's host code (runtime/worker.cpp). None for a
// tensor that is not contiguous or not made by the functions above.
struct SharedBytes {
  int fd = -1;
  std::size_t offset = 0;
  bool sealed = false;
};
std::optional<SharedBytes> shared_bytes(const at::Tensor& t);

// The receiving side: maps `bytes` of `fd` read-only from `offset` and returns a tensor of
// `shape` and `dtype` over them (its own mapping; `fd` is not kept). Refuses (empty optional, with
// `why`) a descriptor that would allow a write to the file, or a file too short.
std::optional<at::Tensor> map_shared(int fd, std::size_t offset, const std::vector<std::int64_t>& shape,
                                     at::ScalarType dtype, std::string& why);

}  // namespace kaudit::runtime
