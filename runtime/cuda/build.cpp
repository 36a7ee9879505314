#include "runtime/cuda/build.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/cache.h"
#include "common/files.h"
#include "common/process.h"
#include "common/sandbox.h"
#include "common/sha256.h"

#if !defined(KAUDIT_GPU_INCLUDE_DIR) || !defined(KAUDIT_TORCH_INCLUDE_DIRS) || !defined(KAUDIT_TORCH_LIB_DIR) || \
    !defined(KAUDIT_TORCH_CXX11_ABI)
#error "the build must define KAUDIT_GPU_INCLUDE_DIR, KAUDIT_TORCH_INCLUDE_DIRS, KAUDIT_TORCH_LIB_DIR, KAUDIT_TORCH_CXX11_ABI"
#endif

namespace kaudit::cuda {
namespace fs = std::filesystem;

namespace {
std::vector<std::string> split_list(std::string_view list) {  // a CMake list: a;b;c
  std::vector<std::string> out;
  std::string cur;
  for (char c : list) {
    if (c == ';') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::vector<std::string> nvcc_flags(const std::string& arch) {
  std::vector<std::string> f = {"-std=c++17", "-O0", "-arch=" + arch, "--shared", "-Xcompiler", "-fPIC",
                                "--expt-relaxed-constexpr", "-D__CUDA_NO_HALF_OPERATORS__",
                                "-D__CUDA_NO_HALF_CONVERSIONS__", "-D__CUDA_NO_BFLOAT16_CONVERSIONS__",
                                "-D__CUDA_NO_HALF2_OPERATORS__",
                                std::string("-D_GLIBCXX_USE_CXX11_ABI=") + KAUDIT_TORCH_CXX11_ABI,
                                "-I", KAUDIT_GPU_INCLUDE_DIR};
  for (const auto& dir : split_list(KAUDIT_TORCH_INCLUDE_DIRS)) f.insert(f.end(), {"-I", dir});
  return f;
}

// What nvcc may do on an untrusted kernel text (issue 21, item 3; common/sandbox.h,
// CompilerPolicy): read and execute only under the system's folders, the CUDA toolkit's tree
// (where nvcc lives), the entry's headers and libtorch's headers and libraries (a PyTorch
// installed outside /usr), and write only in the build's own folder, which is its TMPDIR for
// cudafe++, cicc, ptxas and the host compiler's intermediates. So `#include "/etc/hostname"` in a
// kernel fails to open and no diagnostic carries the file.
sandbox::CompilerPolicy nvcc_policy(const std::string& nvcc, const fs::path& build_dir) {
  sandbox::CompilerPolicy p;
  p.read_paths = sandbox::system_read_paths();
  if (nvcc.find('/') != std::string::npos) {
    const std::string real = real_path(nvcc);  // <toolkit>/bin/nvcc
    if (!real.empty()) p.read_paths.push_back(fs::path(real).parent_path().parent_path().string());
  }
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) p.read_paths.push_back(home);
  p.read_paths.push_back(KAUDIT_GPU_INCLUDE_DIR);
  for (const auto& dir : split_list(KAUDIT_TORCH_INCLUDE_DIRS)) p.read_paths.push_back(dir);
  p.read_paths.push_back(KAUDIT_TORCH_LIB_DIR);
  p.write_dirs = {build_dir.string()};
  p.cpu_seconds = 900;              // per process; the whole build's wall-clock limit is 900 s too
  p.address_space = 16ull << 30;    // the host pass over libtorch's headers takes a few GiB
  p.file_size = 1ull << 30;
  return p;
}

std::vector<std::string> link_flags() {
  const std::string lib = KAUDIT_TORCH_LIB_DIR;
  return {"-L" + lib, "-Xlinker", "-rpath," + lib, "-lc10", "-lc10_cuda", "-ltorch_cpu", "-ltorch_cuda", "-ltorch"};
}

// Reads `name` from the GPU include folder, without its `#pragma once`; throws when unreadable.
std::string header_body(const std::string& name) {
  const fs::path path = fs::path(KAUDIT_GPU_INCLUDE_DIR) / name;
  const auto header = read_file(path);
  if (!header) throw std::runtime_error(path.string() + ": cannot be read (the GPU entry of every exported build)");
  std::string body = *header;
  const std::string once = "#pragma once\n";
  if (const auto at = body.find(once); at != std::string::npos) body.erase(at, once.size());
  return body;
}

// Replaces `#include "<name>"` in `text` by the header's body; false when the text has no such line.
bool inline_header(std::string& text, const std::string& name) {
  const std::string include = "#include \"" + name + "\"\n";
  const auto at = text.find(include);
  if (at == std::string::npos) return false;
  text.replace(at, include.size(), header_body(name));
  return true;
}
}  // namespace

std::vector<std::string> launch_count_flags() {
  std::vector<std::string> f = {"-DKAUDIT_COUNT_LAUNCHES"};
  for (const char* symbol : {"__cudaLaunchKernel", "__cudaLaunchKernel_ptsz", "cudaLaunchKernel", "cudaLaunchKernel_ptsz",
                             "cudaLaunchCooperativeKernel", "cudaLaunchCooperativeKernel_ptsz", "cudaLaunchKernelExC",
                             "cudaLaunchKernelExC_ptsz", "cudaGraphLaunch", "cudaGraphLaunch_ptsz"})
    f.insert(f.end(), {"-Xlinker", std::string("--wrap=") + symbol});
  return f;
}

std::string gpu_include_dir() { return KAUDIT_GPU_INCLUDE_DIR; }

std::string find_nvcc() {
  if (const char* env = std::getenv("KAUDIT_NVCC"); env && *env) return env;
  if (const char* home = std::getenv("CUDA_HOME"); home && *home && fs::exists(fs::path(home) / "bin" / "nvcc"))
    return (fs::path(home) / "bin" / "nvcc").string();
  if (fs::exists("/usr/local/cuda/bin/nvcc")) return "/usr/local/cuda/bin/nvcc";
  return "nvcc";
}

std::string gpu_source(std::string_view kernel_text, std::string_view file, std::string_view entry,
                       std::string_view lib, std::string_view what) {
  std::ostringstream os;
  os << "// kaudit GPU build: " << what << "\n"
     << "#include <cuda_runtime.h>\n"
     << "__device__ int kaudit_active_mutant_d = 0;\n"
     << "static int kaudit_active_mutant_h = 0;\n"
     << "#ifdef __CUDA_ARCH__\n#define kaudit_active_mutant kaudit_active_mutant_d\n#else\n"
     << "#define kaudit_active_mutant kaudit_active_mutant_h\n#endif\n"
     << "#line 1 \"" << file << "\"\n"
     << kernel_text << "\n#line 1 \"<kaudit gpu entry>\"\n#include \"kaudit_gpu_entry.h\"\n"
     // Qualified from the global namespace, as the CPU build's shim does (runtime/cpu/lower.cpp):
     // an entry named `forward` next to `using namespace std` is then the file's own function.
     << "KAUDIT_GPU_ENTRY(" << (entry.rfind("::", 0) == 0 ? "" : "::") << entry << ", " << lib << ")\n";
  return os.str();
}

std::string standalone_gpu_source(std::string_view kernel_text, std::string_view file, std::string_view entry,
                                  std::string_view lib, std::string_view what) {
  std::string text = gpu_source(kernel_text, file, entry, lib, what);
  if (!inline_header(text, "kaudit_gpu_entry.h")) throw std::runtime_error("gpu_source lost its entry #include");
  if (!inline_header(text, "kaudit_launch_count.h")) throw std::runtime_error("kaudit_gpu_entry.h lost its #include of kaudit_launch_count.h");
  // No #line directives: nvcc's dependency file (-MD, which PyTorch's extension builder asks for)
  // lists the file a #line names, and a name that is no file there makes ninja rebuild the
  // extension on every load (45 s a load on an H100 machine). The names stay as comments.
  std::string out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) out += (line.rfind("#line ", 0) == 0 ? "// " + line.substr(1) : line) + "\n";
  return out;
}

CudaCompiler::CudaCompiler(fs::path cache_dir, std::string arch)
    : cache_dir_(std::move(cache_dir)), arch_(std::move(arch)), nvcc_(find_nvcc()) {
  const ProcessResult v = run_process({nvcc_, "--version"}, 60);
  identity_ = v.out + "\n";
  for (const auto& f : nvcc_flags(arch_)) identity_ += f + " ";
  for (const auto& f : link_flags()) identity_ += f + " ";
  for (const auto& f : launch_count_flags()) identity_ += f + " ";
  identity_ += "\n";
  for (const char* header : {"kaudit_gpu_entry.h", "kaudit_launch_count.h", "torch/extension.h"})
    identity_ += sha256_hex(read_file(fs::path(KAUDIT_GPU_INCLUDE_DIR) / header).value_or(std::string())) + "\n";
  cache::prepare_dir(cache_dir_, "cuda-kernels");  // private, or a CacheDirError now
}

CudaBuild CudaCompiler::build(std::string_view source, std::string_view file_name, std::string_view entry) const {
  const auto t0 = std::chrono::steady_clock::now();
  CudaBuild b;
  const std::string key = sha256_hex(identity_ + "\n" + std::string(entry) + "\n" + std::string(source));
  // The operator namespace must differ between libraries loaded into one worker.
  const std::string lib = "kaudit_" + key.substr(0, 16);
  const std::string text = gpu_source(source, file_name, entry, lib, "kaudit --backend cuda");
  const fs::path dir = cache_dir_ / "cuda-kernels";
  b.library = dir / (key + ".so");
  if (cache::verify(b.library)) {
    b.ok = b.cache_hit = true;
    return b;
  }
  std::error_code ec;
  // A folder of this build's own, per process and thread (two builders of the same key share
  // nothing): the only place nvcc may write (nvcc_policy).
  const fs::path work = dir / (key + "." + std::to_string(getpid()) + "." +
                               std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()) % 1000000) + ".tmp");
  fs::create_directories(work, ec);
  const fs::path src = work / (key + ".cu"), tmp = work / (key + ".so");
  {
    std::ofstream out(src, std::ios::binary);
    out << text;
    if (!out) {
      b.diagnostics = "cannot write " + src.string();
      remove_tree(work);
      return b;
    }
  }
  std::vector<std::string> argv = {nvcc_};
  const auto flags = nvcc_flags(arch_);
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {src.string(), "-o", tmp.string()});
  const auto link = link_flags();
  argv.insert(argv.end(), link.begin(), link.end());
  const auto counting = launch_count_flags();
  argv.insert(argv.end(), counting.begin(), counting.end());
  const ProcessResult r = run_confined_process(argv, 900, nvcc_policy(nvcc_, work), work.string());
  if (!r.ok()) {
    remove_tree(work);
    b.diagnostics = r.timed_out ? "nvcc timed out after 900 s" : (r.err.empty() ? r.out : r.err);
    if (!r.started) b.diagnostics = "cannot run nvcc '" + nvcc_ + "': " + r.spawn_error + " (set KAUDIT_NVCC or CUDA_HOME)";
    return b;
  }
  std::string error;
  const bool sealed = cache::seal(tmp, b.library, &error);  // atomic: concurrent builders agree
  remove_tree(work);
  if (!sealed) {
    b.diagnostics = "cannot move the built library into the cache: " + error;
    return b;
  }
  b.ok = true;
  b.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return b;
}

}  // namespace kaudit::cuda
