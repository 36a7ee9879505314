#include "runtime/cpu/compile.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <vector>

#include "common/cache.h"

#include "common/process.h"
#include "common/sandbox.h"
#include "common/sha256.h"
#include "runtime/cpu/lower.h"
#include "runtime/cpu/shared_window.h"
#include "common/files.h"

#ifndef KAUDIT_PRELUDE_DIR_DEFAULT
#error "KAUDIT_PRELUDE_DIR_DEFAULT must be defined by the build"
#endif

namespace kaudit::cpu {
namespace fs = std::filesystem;

namespace {
// -ffp-contract=off and no fast-math: float results are the same on every x86-64 machine.
// -fvisibility=hidden and -fno-gnu-unique: several kernel libraries live in one worker, and their
// inline functions, templates and static __shared__ variables must stay private to each.
// -mfma where this CPU has FMA: `fmaf` (CUDA's fmaf, __fmaf_rn) becomes one instruction instead
// of a libm call (13% of a tiled matmul's run). A fused multiply-add is correctly rounded either
// way, and contraction stays off, so the results are the same bits; the flag is part of the
// compiler identity, so a cache never hands such a library to a CPU without FMA.
// -ftrivial-auto-var-init=pattern: a local read before it is written (undefined in CUDA; a mutant
// that starts a zeroing loop at 1 does it) sees a fixed byte pattern, not whatever an earlier run
// left on this worker's (fiber) stack, so its outcome does not depend on the order of runs.
// -fno-toplevel-reorder: static __shared__ variables (thread-locals) in declaration order, as a
// GPU lays out a block's buffers (GCC otherwise emits them in reverse): a read past one buffer
// then reads the next, as there (runtime/cpu/shared_window.h).
std::vector<std::string> compile_flags() {
  std::vector<std::string> flags = {"-std=c++17", "-O2", "-g0", "-fPIC", "-ffp-contract=off",
                                    "-fvisibility=hidden", "-fno-gnu-unique", "-w",
                                    "-ftrivial-auto-var-init=pattern", "-fno-toplevel-reorder"};
#if defined(__x86_64__)
  if (__builtin_cpu_supports("fma")) flags.push_back("-mfma");
#endif
  return flags;
}
const std::vector<std::string> kFlags = compile_flags();
// For the library only (the precompiled prelude is made with kFlags). -s drops the static symbol
// table, which would name the temporary source and object files: the bytes of a library then
// depend on its source and flags alone.
const std::vector<std::string> kLinkFlags = {"-shared", "-s"};

// The compiler reads kernel text nobody vouches for (issue 21, item 3; common/sandbox.h,
// CompilerPolicy): it may read the system's programs and headers, the preludes and the
// precompiled prelude, and write only `build_dir`, where its temporary files go too. 8 GiB of
// address space and 300 s of CPU per process are far above what the preludes need (a kernel
// builds in about 2 s), and a 1 GiB file limit bounds what it can write.
sandbox::CompilerPolicy compiler_policy(const std::string& compiler, const fs::path& prelude_dir,
                                        const fs::path& pch_root, const fs::path& build_dir) {
  sandbox::CompilerPolicy p;
  p.read_paths = sandbox::system_read_paths();
  // A compiler installed elsewhere (KAUDIT_CXX=/opt/gcc-13/bin/g++) reads its own tree.
  if (compiler.find('/') != std::string::npos) {
    const std::string real = real_path(compiler);  // not fs::canonical: common/files.h says why
    if (!real.empty()) p.read_paths.push_back(fs::path(real).parent_path().parent_path().string());
  }
  p.read_paths.push_back(prelude_dir.string());
  if (!pch_root.empty()) p.read_paths.push_back(pch_root.string());
  p.write_dirs = {build_dir.string()};
  p.cpu_seconds = 300;
  p.address_space = 8ull << 30;
  p.file_size = 1ull << 30;
  return p;
}

}  // namespace

fs::path default_prelude_dir() {
  if (const char* env = std::getenv("KAUDIT_PRELUDE_DIR")) return env;
  return KAUDIT_PRELUDE_DIR_DEFAULT;
}

CpuCompiler::CpuCompiler(fs::path cache_dir, fs::path prelude_dir)
    : cache_dir_(std::move(cache_dir)), prelude_dir_(prelude_dir.empty() ? default_prelude_dir() : std::move(prelude_dir)) {
  const char* cxx = std::getenv("KAUDIT_CXX");
  compiler_ = cxx ? cxx : "g++";
  std::string prelude;
  std::vector<fs::path> files;
  if (fs::exists(prelude_dir_))
    for (const auto& e : fs::recursive_directory_iterator(prelude_dir_))
      if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) prelude += f.lexically_relative(prelude_dir_).string() + "\n" + read_file(f).value_or(std::string());
  ProcessResult v = run_process({compiler_, "--version"}, 30);
  identity_ = v.out + "\n";
  for (const auto& f : kFlags) identity_ += f + " ";
  for (const auto& f : kLinkFlags) identity_ += f + " ";
  identity_ += "\n" + sha256_hex(prelude);
  // The layout of static shared memory is made here, not by a flag (shared_window.h).
  identity_ += "\nshared window: guard " + std::to_string(kSharedGuardBytes) + ", before " +
               std::to_string(kSharedReservedBytes) + ", granule " + std::to_string(kSharedWindowGranule);
  cache::prepare_dir(cache_dir_, "cpu-kernels");  // private, or a CacheDirError now
}

fs::path CpuCompiler::precompiled_prelude() const {
  if (std::getenv("KAUDIT_NO_PCH")) return {};  // for comparisons, and a way out if a compiler misbehaves
  static std::mutex making;  // kernels build on several threads: make the headers once
  std::lock_guard<std::mutex> lock(making);
  const fs::path root = cache_dir_ / "cpu-pch" / sha256_hex(identity_);
  const fs::path dir = root / "kaudit_cpu" / "prelude.h.gch";  // GCC tries each file in it
  static std::set<std::string> verified;  // checked once per process: they are large
  for (const char* fibers : {"0", "1"}) {
    const fs::path pch = dir / (std::string("fibers") + fibers + ".gch");
    if (verified.count(pch.string())) continue;
    if (cache::verify(pch)) {
      verified.insert(pch.string());
      continue;
    }
    std::error_code ec;
    fs::create_directories(dir, ec);
    const fs::path tmp = dir / (std::string("fibers") + fibers + "." + std::to_string(getpid()) + ".tmp");
    std::vector<std::string> argv = {compiler_};
    argv.insert(argv.end(), kFlags.begin(), kFlags.end());
    argv.insert(argv.end(), {std::string("-DKAUDIT_NEEDS_FIBERS=") + fibers, "-I", prelude_dir_.string(), "-I",
                            (prelude_dir_ / "stubs").string(), "-x", "c++-header",
                            (prelude_dir_ / "kaudit_cpu" / "prelude.h").string(), "-o", tmp.string()});
    if (!run_confined_process(argv, 300, compiler_policy(compiler_, prelude_dir_, {}, dir), dir.string()).ok()) {
      fs::remove(tmp, ec);
      return {};  // builds still work, only slower
    }
    if (!cache::seal(tmp, pch)) return {};  // atomic: concurrent makers agree
    verified.insert(pch.string());
  }
  return root;
}

CpuBuild CpuCompiler::build(std::string_view source, std::string_view file_name, std::string_view entry) const {
  const auto t0 = std::chrono::steady_clock::now();
  CpuBuild b;
  LoweredSource lowered = lower_for_cpu(source, file_name, entry);
  if (!lowered.errors.empty()) {
    std::ostringstream os;
    for (const auto& e : lowered.errors) os << file_name << ":" << e.line << ":" << e.column << ": error: " << e.message << "\n";
    b.diagnostics = os.str();
    return b;
  }
  const std::string key = sha256_hex(identity_ + "\n" + lowered.text);
  const fs::path dir = cache_dir_ / "cpu-kernels";
  b.library = dir / (key + ".so");
  // A hit is a library whose bytes match the digest recorded when it was built; a damaged one is
  // reported and built again (common/cache.h).
  if (cache::verify(b.library)) {
    b.ok = b.cache_hit = true;
    return b;
  }
  std::error_code ec;
  // A folder of this build's own: the only place its compiler may write (compiler_policy).
  // The process and a counter: two threads of one process may build the same text at once.
  static std::atomic<unsigned long> builds{0};
  const fs::path work = dir / (key + "." + std::to_string(getpid()) + "." + std::to_string(builds++) + ".tmp");
  fs::create_directories(work, ec);
  const fs::path src = work / (key + ".cpp"), tmp = work / (key + ".so");
  {
    std::ofstream out(src, std::ios::binary);
    out << lowered.text;
    if (!out) {
      b.diagnostics = "cannot write " + src.string();
      remove_tree(work);
      return b;
    }
  }
  // Two steps, so that the thread-local block can be laid out around the kernel's static
  // __shared__ variables as the GPU lays out a block's shared memory (runtime/cpu/shared_window.h):
  // the object first, then its variables' size sizes the front pad the library is linked with.
  const fs::path obj = work / (key + ".o"), front = work / "tls_pad_front.s";
  const fs::path pch = precompiled_prelude();
  auto fail = [&](const ProcessResult& r, const char* what) {
    remove_tree(work);
    b.diagnostics = r.timed_out ? std::string("the C++ compiler timed out") + what : (r.err.empty() ? r.out : r.err);
    if (!r.started) b.diagnostics = "cannot run the C++ compiler '" + compiler_ + "': " + r.spawn_error;
    return b;
  };
  std::vector<std::string> argv = {compiler_};
  argv.insert(argv.end(), kFlags.begin(), kFlags.end());
  if (!pch.empty()) argv.insert(argv.end(), {"-I", pch.string()});
  argv.insert(argv.end(), {"-I", prelude_dir_.string(), "-I", (prelude_dir_ / "stubs").string(), "-x", "c++", "-c",
                           src.string(), "-o", obj.string()});
  ProcessResult r = run_confined_process(argv, 300, compiler_policy(compiler_, prelude_dir_, pch, work), work.string());
  if (!r.ok()) return fail(r, "");
  std::string why;
  const auto extent = thread_local_extent(read_file(obj).value_or(std::string()), &why);
  if (!extent) {
    remove_tree(work);
    b.diagnostics = "cannot read the thread-local sections of the object compiled from " + std::string(file_name) + ": " + why;
    return b;
  }
  {
    std::ofstream out(front, std::ios::binary);
    out << front_pad_assembly(front_pad_bytes(*extent));
    if (!out) {
      remove_tree(work);
      b.diagnostics = "cannot write " + front.string();
      return b;
    }
  }
  // The front pad, the kernel, the back guard: .tbss input sections keep the command line's order.
  argv = {compiler_};
  argv.insert(argv.end(), kLinkFlags.begin(), kLinkFlags.end());
  argv.insert(argv.end(), {"-x", "assembler", front.string(), "-x", "none", obj.string(), "-x", "assembler",
                           (prelude_dir_ / "kaudit_cpu" / "tls_pad_back.s").string(), "-o", tmp.string()});
  r = run_confined_process(argv, 300, compiler_policy(compiler_, prelude_dir_, pch, work), work.string());
  if (!r.ok()) return fail(r, " linking");
  std::string error;
  const bool sealed = cache::seal(tmp, b.library, &error);  // atomic: concurrent builders of the same key agree
  remove_tree(work);
  if (!sealed) {
    b.diagnostics = "cannot move the built library into the cache: " + error;
    return b;
  }
  b.ok = true;
  b.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return b;
}

}  // namespace kaudit::cpu
