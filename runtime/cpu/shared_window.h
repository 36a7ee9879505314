// Where the CPU backend puts a block's shared memory, so that an access out of bounds does what it
// does on a GPU (docs/ORACLES.md, "Shared memory").
//
// Measured on an H200 and an H100 (docs/calibration/h200-2026-12-03-smem, h100-2026-12-07d): a
// block's shared memory is one window holding its buffers in declaration order, static ones first
// and the dynamic one after them; it runs from 1 KiB before the first buffer (the 1 KiB sm_90
// reserves per block) to the buffers' total size rounded up to 128 bytes. Inside the window an
// access is silent (a read past one buffer reads the next); outside it the kernel faults.
//
// The CPU backend keeps static __shared__ variables in the kernel library's thread-local block
// (the prelude makes `__shared__` `static thread_local`) and the dynamic buffer in memory of the
// emulator's. Both are laid out here so that the window's end is a page boundary followed by an
// inaccessible guard: an access past the rounded end faults, as on the GPU. Page granularity
// cannot also make the start exact: the guard below ends 1 to 5 KiB before the first buffer, so an
// access 1 to at most 5 KiB before it is silent here and a fault on a GPU.
//
//   thread-local block:  [guard 64 KiB][zone 1-5 KiB][variables, rounded to 128 B][guard 64 KiB]
//
// The variables' size is read from the compiled object before the library is linked (its .tbss
// sections), and the front pad is sized from it (runtime/cpu/compile.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kaudit::cpu {

constexpr std::uint64_t kSharedGuardBytes = 65536;  // each end of the thread-local block
constexpr std::uint64_t kSharedPageBytes = 4096;
constexpr std::uint64_t kSharedWindowGranule = 128;  // the window's end is rounded up to this
constexpr std::uint64_t kSharedReservedBytes = 1024;  // silent before the first buffer

// The thread-local storage a relocatable object asks for: its uninitialized TLS sections (.tbss)
// laid end to end in their order in the file, each at its own alignment, as the linker places
// them; `align` is the largest of those alignments. `initialized` is true when the object also has
// initialized TLS (.tdata): then the block is not laid out by these rules (the runtime finds it
// has file contents and only poisons it, without guards).
struct ThreadLocalExtent {
  std::uint64_t bytes = 0;
  std::uint64_t align = 1;
  bool initialized = false;
};

// Reads an x86-64 ELF relocatable object's section headers. nullopt, with `error` saying what is
// wrong, for bytes that are not one.
std::optional<ThreadLocalExtent> thread_local_extent(std::string_view object, std::string* error);

// The window of `bytes` of buffers: their size rounded up to 128 bytes (or to `align`, if larger).
// (Inline: the emulator runtime, a library of its own, uses it too.)
constexpr std::uint64_t shared_window_bytes(std::uint64_t bytes, std::uint64_t align = 1) {
  const std::uint64_t granule = align > kSharedWindowGranule ? align : kSharedWindowGranule;
  return (bytes + granule - 1) / granule * granule;
}

// The front pad's size: a 64 KiB guard and at least 1 KiB more, a multiple of the variables'
// alignment, and such that the variables' end rounded up to 128 bytes (or to their alignment,
// where that is larger) falls on a page boundary. (An alignment over a page, which no kernel of
// the corpus has, is taken as a page: the linker may then put the variables up to that alignment
// later, and the zone before them grows; their window's end stays on the back guard.)
std::uint64_t front_pad_bytes(const ThreadLocalExtent& extent);

// The assembly of that pad (a .tbss object of `bytes`, page-aligned, with a local symbol), linked
// before the kernel's object; kaudit_cpu/tls_pad_back.s (the back guard) is linked after it.
std::string front_pad_assembly(std::uint64_t bytes);

}  // namespace kaudit::cpu
