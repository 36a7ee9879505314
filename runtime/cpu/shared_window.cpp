#include "runtime/cpu/shared_window.h"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <sstream>

namespace kaudit::cpu {
namespace {

std::uint64_t round_up(std::uint64_t v, std::uint64_t to) { return to <= 1 ? v : (v + to - 1) / to * to; }

}  // namespace

std::optional<ThreadLocalExtent> thread_local_extent(std::string_view object, std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<ThreadLocalExtent> {
    if (error) *error = why;
    return std::nullopt;
  };
  Elf64_Ehdr eh;
  if (object.size() < sizeof eh) return fail("shorter than an ELF header");
  std::memcpy(&eh, object.data(), sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) return fail("not an ELF file");
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != EM_X86_64)
    return fail("not a 64-bit little-endian x86-64 ELF file");
  if (eh.e_type != ET_REL) return fail("not a relocatable object");
  if (eh.e_shentsize != sizeof(Elf64_Shdr)) return fail("unexpected section header size");
  if (eh.e_shnum == 0 && eh.e_shoff != 0) return fail("extended section numbering (65280 sections or more)");
  if (eh.e_shoff > object.size() || std::uint64_t(eh.e_shnum) * sizeof(Elf64_Shdr) > object.size() - eh.e_shoff)
    return fail("section headers past the end of the file");
  ThreadLocalExtent e;
  for (unsigned i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh;
    std::memcpy(&sh, object.data() + eh.e_shoff + i * sizeof sh, sizeof sh);
    if (!(sh.sh_flags & SHF_TLS) || sh.sh_size == 0) continue;
    if (sh.sh_type != SHT_NOBITS) {
      e.initialized = true;
      continue;
    }
    const std::uint64_t align = std::max<std::uint64_t>(sh.sh_addralign, 1);
    e.bytes = round_up(e.bytes, align) + sh.sh_size;
    e.align = std::max(e.align, align);
  }
  return e;
}

std::uint64_t front_pad_bytes(const ThreadLocalExtent& extent) {
  const std::uint64_t window = shared_window_bytes(extent.bytes, std::min(extent.align, kSharedPageBytes));
  // The smallest pad at least guard + 1 KiB with pad + window a whole number of pages. window is a
  // multiple of 128 and of the alignment, so the pad is too (both divide the page).
  const std::uint64_t least = kSharedGuardBytes + kSharedReservedBytes;
  return round_up(least + window, kSharedPageBytes) - window;
}

std::string front_pad_assembly(std::uint64_t bytes) {
  std::ostringstream os;
  os << "# Front of a kernel library's thread-local block (runtime/cpu/shared_window.h): a guard\n"
        "# the runtime makes inaccessible, then the zone up to the kernel's static __shared__\n"
        "# variables, sized so that their end rounded up to 128 bytes is a page boundary.\n"
        "\t.section .tbss,\"awT\",@nobits\n"
        "\t.balign 4096\n"
        "\t.type kaudit_static_shared_front, @object\n"
        "\t.size kaudit_static_shared_front, "
     << bytes
     << "\n"
        "kaudit_static_shared_front:\n"
        "\t.zero "
     << bytes
     << "\n"
        "\t.section .note.GNU-stack,\"\",@progbits\n";
  return os.str();
}

}  // namespace kaudit::cpu
