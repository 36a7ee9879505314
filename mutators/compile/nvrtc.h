// kaudit::mutators -- compile a kernel text with NVRTC to an sm_90 CUBIN and hash the image
// (Trivial Compiler Equivalence on the GPU image: equal images mean equal programs).
//
//   NvrtcCompiler nvrtc(cache_dir);
//   CompileResult r = nvrtc.compile(cu_text, "corpus/kernels/relu/relu_float4.cu");
//   r.status == CompileResult::Ok  ->  r.image_sha256 names the image
//   compile_all(nvrtc, sources)     ->  the same for many texts, in parallel (worker processes)
//   classify_images(...) in dedup.h ->  stillborn / equivalent / duplicate-of / distinct
//
// What is compiled. The input is a KernelBench `cuda_sources` text: device code plus a host
// wrapper written against torch (torch::Tensor, TORCH_CHECK, AT_DISPATCH_*, at::cuda streams) that
// launches kernels with `<<<grid, block, smem, stream>>>`. The text is compiled as it is -- never
// edited, no marker between device and host code is assumed -- so imported real-world solutions
// work the same way and diagnostics carry the .cu file's own line numbers.
//
// How NVRTC treats host code and launches (checked with NVRTC 13.0):
//  * NVRTC is device-only. A function with no execution-space annotation is a host function and
//    is rejected ("host functions are not allowed in JIT mode"); so is one marked `__host__`;
//    unannotated namespace-scope variables are rejected likewise.
//  * `-default-device` makes every unannotated function and variable __device__. The wrapper then
//    compiles as device code, and `k<<<...>>>(args)` in it is a *device-side launch* (dynamic
//    parallelism). NVRTC lowers such a launch to cudaGetParameterBufferV2/cudaLaunchDeviceV2; it
//    only asks that these be declared ("device-side kernel launch could not be processed as the
//    required runtime APIs are not declared" otherwise); the prelude declares them.
//  * A device-side launch is type-checked exactly like nvcc's host-side one: overload resolution,
//    template argument deduction (`kern<<<g, b>>>(x.data_ptr<scalar_t>())` deduces kern<float>),
//    conversions of the arguments and of the configuration. Its callee's address goes into the
//    parameter buffer, so the kernel template IS instantiated -- whether it is named with explicit
//    arguments (`kernel<float, 256><<<...>>>`), through a constexpr (`k<TILE>`), deduced, inside an
//    AT_DISPATCH lambda (`k<scalar_t>`), or inside a host-side helper template. A mutation inside
//    a template kernel therefore changes the image, and so does a host mutation that changes a
//    template argument. No source rewriting is needed, and none of the fragile cases a textual
//    launch rewrite has (template arguments that are dependent names, deduced arguments, launches
//    spread over lines, launches produced by macros) exist.
//  * Torch, the CUDA host API and the C++ library do not exist under NVRTC; the prelude
//    (nvrtc_prelude.cuh, force-included as an in-memory header) provides declaration-level
//    stand-ins, and the headers a wrapper includes are empty in-memory headers. NVRTC lacks
//    <cstdint>, <cmath>, <vector> etc.: the prelude supplies what wrappers and kernels use.
//
// The image. By default (NvrtcOptions::host_code_in_image) the compile is relocatable
// (-rdc=true): the host wrapper is an externally visible device function, so it is kept in the
// CUBIN, with its calls into the (declaration-only) torch stand-ins left as unresolved externs.
// The image hash then covers the host wrapper too, and host-side mutants -- ceil-div grid turned
// into floor-div, a block size, a dynamic shared-memory size, a dropped TORCH_CHECK -- are
// classified by the very same method as device mutants: NVVM's optimiser decides what is
// equivalent (`i < n` vs `n > i` in host code compile to the same image). Such an image is for
// hashing only: it is never linked or loaded. With host_code_in_image = false the compile is
// whole-program (no -rdc): the wrapper is dead code and dropped, the image holds exactly the
// kernels (and every template instantiation the wrapper asked for) and is loadable as it is; but
// a mutant that only changes host code then compiles to the original's image.
//
// Options mirror a torch extension build (torch.utils.cpp_extension's nvcc flags):
// -D__CUDA_NO_HALF_OPERATORS__ -D__CUDA_NO_HALF_CONVERSIONS__ -D__CUDA_NO_BFLOAT16_CONVERSIONS__
// -D__CUDA_NO_HALF2_OPERATORS__, C++17, sm_90, no -G/-lineinfo (the image is byte-identical from
// run to run). A kernel that relies on __half operators would not build as a torch extension
// either, and is Failed here. Differences from nvcc that remain: an unannotated helper called from
// a kernel is accepted (nvcc rejects it; the CPU backend accepts it too); host code cannot use
// exceptions, RTTI or namespace-scope variables with dynamic initialisation; host-side library
// calls must exist in the prelude (missing ones are a clear "identifier ... is undefined").
//
// Determinism and caching. The program is always compiled under the internal name
// kInternalFileName (so the image, which can contain __FILE__ through assert(), does not depend on
// where the kernel lives); the log and diagnostics are rewritten to the caller's file_name. A
// result is cached as <cache_dir>/nvrtc/<key>.json, key = SHA-256 of (source, NVRTC version,
// options, prelude and in-memory headers), holding the status, the image hash and the first
// diagnostic; writes go to a temporary file renamed into place. A warm compile costs the key hash
// and one small file read. NVRTC failures other than a compile error (out of memory, internal
// errors) are returned as Failed but not cached.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace kaudit::mutators {

struct CompileResult {
  enum Status { Ok, Failed, Unavailable };
  Status status = Unavailable;
  std::string image_sha256;      // lower-case hex SHA-256 of the CUBIN; empty unless Ok
  std::string first_diagnostic;  // "file:line: error: message" (or NVRTC's message); Failed only
  std::string log;               // NVRTC's log, file names rewritten to the caller's (may be empty)
  double milliseconds = 0;       // wall time of this compile() call
  bool cache_hit = false;

  bool ok() const { return status == Ok; }
};
// "ok", "failed", "unavailable".
const char* status_name(CompileResult::Status status);

struct NvrtcOptions {
  // Compile relocatable so the host wrapper stays in the image (see above).
  bool host_code_in_image = true;
  // Appended to the built-in options (and part of the cache key).
  std::vector<std::string> extra_options;
};

class NvrtcCompiler {
 public:
  // The name NVRTC sees for every program (see "Determinism and caching").
  static constexpr const char* kInternalFileName = "kaudit_nvrtc_input.cu";

  // cache_dir: results are cached under <cache_dir>/nvrtc/. An empty path disables the cache.
  explicit NvrtcCompiler(std::filesystem::path cache_dir, NvrtcOptions options = {});

  // Compiles the whole kernel text (device code and host wrapper). Thread-safe; never throws for
  // bad kernel text (a compile error is a Failed result). Without NVRTC the status is Unavailable
  // and first_diagnostic says why.
  CompileResult compile(std::string_view cu_source, std::string_view file_name) const;

  // "13.0"; empty when NVRTC is unavailable.
  std::string nvrtc_version() const;
  // The options given to nvrtcCompileProgram (without the per-source prelude selection).
  const std::vector<std::string>& options() const;
  bool available() const { return available_; }
  const std::filesystem::path& cache_dir() const { return cache_dir_; }
  const NvrtcOptions& nvrtc_options() const { return user_options_; }
  // The cache key of a source (lower-case hex SHA-256).
  std::string cache_key(std::string_view cu_source) const;

  // The prelude text (nvrtc_prelude.cuh) built into the library.
  static std::string_view prelude();

 private:
  friend struct NvrtcCompilerAccess;
  // A cache hit, with the caller's file name substituted (false: not cached, or no cache).
  bool lookup(std::string_view cu_source, std::string_view file_name, CompileResult& out) const;

  std::filesystem::path cache_dir_;
  NvrtcOptions user_options_;
  std::vector<std::string> options_;
  std::string version_;
  std::string unavailable_reason_;
  std::string config_digest_;  // hash of everything but the source
  bool available_ = false;
};

struct CompileAllOptions {
  // How many compiles run at once; 0: parallel::max_concurrency() (common/parallel.h), i.e. the
  // cores this process may use (2 on the project's machine).
  unsigned max_parallelism = 0;
  // NVRTC 13.0 runs one compile at a time per process: measured on a 16-core machine, 1 to 16
  // threads give the same throughput (~35 ms per corpus kernel), while 8 separate processes give 8
  // times as much. (Forking this process does not help: a process forked after NVRTC was used
  // compiles 3-4 times slower.) So the compiles that miss the cache go to fresh worker processes
  // (the kaudit_nvrtc_worker program, one per unit of parallelism but at most one per two
  // sources, each taking the next source as it finishes one and writing the cache itself; see
  // nvrtc_wire.h). A worker is used only if it
  // reports exactly this compiler's configuration (prelude, options, NVRTC); one that dies costs
  // only the source it was compiling, which is reported Failed, and a fresh worker takes its
  // place. Each worker confines itself (confine_nvrtc_worker): only there is NVRTC confined.
  // Without a usable worker program, or with worker_processes = false, the compiles run on
  // threads of this process, unconfined (said once on stderr in the first case): the same
  // results, at the speed of one.
  bool worker_processes = true;
  // Wall-clock limit of one source's compile in a worker (issue 21, item 3): a worker still busy
  // after it is killed and its source reported Failed ("took longer than ..."); another worker
  // takes the rest. Corpus kernels take 35 ms to a few seconds.
  double job_timeout_seconds = 300;
};

// The worker program compile_all() would use: $KAUDIT_NVRTC_WORKER if set (empty or not
// executable: none), else the one built with this library, else kaudit_nvrtc_worker next to the
// running executable. Empty when there is none.
std::string nvrtc_worker_executable();

// Confines the calling process, an NVRTC worker, for the rest of its life (issue 21, item 3;
// common/sandbox.h, CompilerPolicy): it may read only the system's folders and the CUDA toolkit's
// headers and libraries, write only beneath `cache_dir` (the results it caches; nothing when
// empty), and open no TCP connection; no_new_privs, no core files, RLIMIT_AS 8 GiB, RLIMIT_FSIZE
// 256 MiB. So `#include "/any/path"` of a file outside those folders fails to open and no
// diagnostic can carry its contents, and `#include "/dev/zero"` fails at once. Must be called
// before the first compile, with one thread. "" on success (also where the user turned the
// sandbox off, or the machine has no Landlock: the limits still apply and missing_layers() says
// what is left open), else why it could not be applied.
std::string confine_nvrtc_worker(const std::filesystem::path& cache_dir);

// Compiles every source; results are in the order of `sources` and identical to compile()'s
// (cache_hit aside). Cache hits are answered in this process (on its threads); the rest are
// compiled in parallel as described above.
std::vector<CompileResult> compile_all(const NvrtcCompiler& compiler,
                                       const std::vector<std::string>& sources,
                                       std::string_view file_name = "kernel.cu",
                                       unsigned max_parallelism = 0);
std::vector<CompileResult> compile_all(const NvrtcCompiler& compiler,
                                       const std::vector<std::string>& sources,
                                       std::string_view file_name,
                                       const CompileAllOptions& options);

}  // namespace kaudit::mutators
