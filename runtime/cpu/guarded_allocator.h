// Memory-check mode: every CPU tensor allocation gets inaccessible guard pages right after its
// end (and before its first page), with the data placed so that its end touches the guard. A
// kernel reading or writing past a tensor then faults at once, and the fault handler reports
// "out-of-bounds" instead of a plain crash. Up to 15 bytes of slack remain after tensors whose
// size is not a multiple of 16 (float4 alignment), like the allocator slack of a real GPU.
// Allocations come from one arena that is inaccessible except under live tensors, so an access
// farther past a tensor than its guard page is reported too (up to the arena's 1 GiB).
#pragma once
#include <cstddef>

namespace kaudit::rt {
// Installs the allocator as libtorch's CPU allocator and the SIGSEGV/SIGBUS handler; a fault in a
// guard page makes the process print a message and exit with kOutOfBoundsExitCode.
void install_guarded_allocator();
// The SIGSEGV/SIGBUS handler alone (install_guarded_allocator and install_device_memory call it):
// a fault in the memory checker's arena or guards exits with kOutOfBoundsExitCode, one in the
// device model during a device session with kIllegalAddressExitCode (device_memory.h).
void install_fault_handler();
// Between runs: when no allocation is live, puts the allocator's arena back in its initial state,
// so the next run's tensors get the same addresses and neighbours as in a fresh worker. Returns
// false (and changes nothing) while an allocation is live or without the allocator.
bool reset_guarded_arena();
// Makes whole pages [p, p + bytes) inaccessible (p and bytes page-aligned) and, with the allocator
// installed, reports a fault in them as out-of-bounds: the static shared memory guards
// (emulator.cpp). False (and nothing changed) when the pages cannot be protected or registered.
// unguard_pages gives them back (before the memory's owner may free it).
bool guard_pages(char* p, std::size_t bytes);
void unguard_pages(char* p, std::size_t bytes);
constexpr int kOutOfBoundsExitCode = 86;
}  // namespace kaudit::rt
