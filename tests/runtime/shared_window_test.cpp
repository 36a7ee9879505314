// The layout of static shared memory in a CPU kernel library (runtime/cpu/shared_window.h): the
// thread-local sections of a compiled object, and the front pad sized from them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/files.h"
#include "common/process.h"
#include "runtime/cpu/shared_window.h"

namespace kaudit::cpu {
namespace {

namespace fs = std::filesystem;

std::uint64_t window_of(const ThreadLocalExtent& e) {
  const std::uint64_t granule = std::max<std::uint64_t>(kSharedWindowGranule, e.align);
  return (e.bytes + granule - 1) / granule * granule;
}

TEST(SharedWindow, TheFrontPadPutsTheRoundedEndOfTheVariablesOnAPage) {
  // 0: no variables; 440: the H100 probe's a[100] and b[10]; 4400: its a[1000] and b[100];
  // 8192: matmul_regtile's two tiles; 4096 + 4: a tile and a flag; a 256-aligned buffer.
  const ThreadLocalExtent cases[] = {{0, 1, false},    {440, 4, false},   {4400, 4, false},
                                     {8192, 16, false}, {4100, 8, false}, {100, 256, false}};
  for (const auto& e : cases) {
    const std::uint64_t pad = front_pad_bytes(e), window = window_of(e);
    SCOPED_TRACE(std::to_string(e.bytes) + " bytes aligned to " + std::to_string(e.align));
    EXPECT_EQ((pad + window) % kSharedPageBytes, 0u);  // the back guard starts at the window's end
    EXPECT_EQ(pad % e.align, 0u);                      // the variables start right after the pad
    // The guard and the 1 KiB a GPU lets a block read before its first buffer, and less than a
    // page more: the zone before the variables is 1 to 5 KiB.
    EXPECT_GE(pad, kSharedGuardBytes + kSharedReservedBytes);
    EXPECT_LT(pad, kSharedGuardBytes + kSharedReservedBytes + kSharedPageBytes);
  }
  EXPECT_EQ(window_of({4400, 4, false}), 4480u);  // the H100's window end: a[1120] faulted
  EXPECT_EQ(front_pad_bytes({4400, 4, false}), 65536u + 3712u);
  EXPECT_EQ(front_pad_bytes({8192, 16, false}), 65536u + 4096u);  // a whole page of zone before the tiles
  EXPECT_EQ(front_pad_bytes({440, 4, false}), 65536u + 3584u);
  EXPECT_EQ(front_pad_bytes({100, 256, false}), 65536u + 3840u);
  const std::string s = front_pad_assembly(69248);
  EXPECT_NE(s.find(".section .tbss"), std::string::npos) << s;
  EXPECT_NE(s.find(".zero 69248"), std::string::npos) << s;
}

// Compiles `source` with the flags that matter here (the CPU build's order of variables) and
// reads the object's thread-local sections.
ThreadLocalExtent extent_of(const std::string& source) {
  const fs::path dir = fs::temp_directory_path() / ("kaudit-shared-window-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path src = dir / "tu.cpp", obj = dir / "tu.o";
  std::ofstream(src) << source;
  const ProcessResult r =
      run_process({"g++", "-std=c++17", "-O2", "-fPIC", "-fno-toplevel-reorder", "-c", src.string(), "-o", obj.string()}, 120);
  EXPECT_TRUE(r.ok()) << r.err;
  std::string error;
  const auto e = thread_local_extent(read_file(obj).value_or(std::string()), &error);
  remove_tree(dir);
  EXPECT_TRUE(e.has_value()) << error;
  return e.value_or(ThreadLocalExtent{});
}

TEST(SharedWindow, TheExtentIsTheObjectsThreadLocalSectionsLaidEndToEnd) {
  // Three arrays (3, 100 floats and 5 doubles): 12 + 400, then 8-byte alignment, + 40.
  auto e = extent_of(R"(
#define __shared__ static thread_local
extern "C" float* k(int i) {
  __shared__ float a[3];
  __shared__ float b[100];
  __shared__ double d[5];
  a[i] = 1; b[i] = 2; d[i] = 3;
  return a + (long)b + (long)d;
}
)");
  EXPECT_EQ(e.bytes, 456u);
  EXPECT_EQ(e.align, 8u);
  EXPECT_FALSE(e.initialized);
  // A thread-local with an initializer is .tdata: the block is then not laid out by these rules.
  e = extent_of("static thread_local int x = 5;\nextern \"C\" int* f() { return &x; }\n");
  EXPECT_TRUE(e.initialized);
  EXPECT_EQ(e.bytes, 0u);
  // No thread-locals at all.
  e = extent_of("extern \"C\" int g(int i) { return i + 1; }\n");
  EXPECT_EQ(e.bytes, 0u);
  EXPECT_FALSE(e.initialized);
}

TEST(SharedWindow, BytesThatAreNoObjectAreAnErrorSayingWhy) {
  std::string error;
  EXPECT_FALSE(thread_local_extent("", &error).has_value());
  EXPECT_NE(error.find("shorter than an ELF header"), std::string::npos) << error;
  EXPECT_FALSE(thread_local_extent(std::string(128, 'x'), &error).has_value());
  EXPECT_NE(error.find("not an ELF file"), std::string::npos) << error;
  // A real ELF header whose section headers lie past the end of the bytes.
  std::string header(64, '\0');
  const unsigned char ident[] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
  std::copy(std::begin(ident), std::end(ident), header.begin());
  header[16] = 1;                       // e_type = ET_REL
  header[18] = 62;                      // e_machine = EM_X86_64
  header[40] = char(0xff);              // e_shoff = 255
  header[58] = 64;                      // e_shentsize
  header[60] = 3;                       // e_shnum
  EXPECT_FALSE(thread_local_extent(header, &error).has_value());
  EXPECT_NE(error.find("section headers past the end"), std::string::npos) << error;
}

}  // namespace
}  // namespace kaudit::cpu
