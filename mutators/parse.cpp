// Parsing a kernel .cu with Clang LibTooling.
//
// How: one ToolInvocation per kernel over an in-memory overlay file system that holds the kernel
// text, the parse prelude (cuda_parse_prelude.h, embedded at build time) and stand-ins for the
// headers KernelBench solutions include (<torch/extension.h>, <cuda_runtime.h>, <cuda_fp16.h>,
// <ATen/cuda/CUDAContext.h>, ...). Only Clang's resource directory (for
// __clang_cuda_builtin_vars.h) is read from disk. (ToolInvocation is what runToolOnCodeWithArgs
// uses inside; calling it directly lets the diagnostics go to our consumer instead of stderr.)
//
// Flags (parse_command_line):
//   -x cuda --cuda-device-only --cuda-gpu-arch=sm_90 -std=c++17
//   -nocudainc -nocudalib --cuda-path=<nonexistent>   no CUDA toolkit: Clang 19 cannot read the
//                                                      CUDA 13 headers, and ignoring any installed
//                                                      toolkit keeps the AST identical on every
//                                                      machine
//   -Wno-unknown-cuda-version
//   -nostdlibinc --target=x86_64-unknown-linux-gnu     hermetic: no system/libstdc++ headers, the
//                                                      same host ABI everywhere
//   -include cuda_parse_prelude.h                      as nvcc/load_inline pre-include the runtime
//   -resource-dir=<clang resource dir> -fsyntax-only -fno-caret-diagnostics
//
// One parse, device side, covers the host wrapper too: Clang's Sema analyses every function in
// either CUDA mode (only code generation is split by side), so the AST of a --cuda-device-only
// parse contains the host wrapper with its CUDAKernelCallExpr launches and launch arithmetic, as
// the same parse with --cuda-host-only would. The device side is the stricter of the two (it also
// rejects device code that calls host-only functions, as NVRTC would), and one parse instead of
// two halves the cost. The only code it cannot see is host code hidden behind
// `#ifndef __CUDA_ARCH__`, which corpus kernels do not use.
#include "mutators/parse.h"

#include "mutators/cuda_model/cuda_model.h"

#include <cstdlib>
#include <memory>
#include <string_view>

#include <clang/AST/ASTConsumer.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/FileManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>

namespace kaudit::mutators::detail {

extern const std::string_view kCudaParsePrelude;  // prelude_embed.cpp (generated)

namespace {

constexpr std::string_view kVirtualRoot = "/__kaudit__";
constexpr std::string_view kIncludeDir = "/__kaudit__/include";
constexpr std::string_view kSourceDir = "/__kaudit__/src";


std::string resource_dir() {
  if (const char* env = std::getenv("KAUDIT_CLANG_RESOURCE_DIR"); env != nullptr && *env != 0) {
    return env;
  }
  return KAUDIT_CLANG_RESOURCE_DIR;
}

std::string main_file_path(const KernelSourceInfo& kernel) {
  std::string base = kernel.file;
  const size_t slash = base.find_last_of('/');
  if (slash != std::string::npos) base = base.substr(slash + 1);
  if (base.empty()) base = "kernel.cu";
  return std::string(kSourceDir) + "/" + base;
}

class Collector : public clang::DiagnosticConsumer {
 public:
  Collector(std::string main_path, std::string display_path,
            std::vector<ParseDiagnostic>& out)
      : main_path_(std::move(main_path)), display_path_(std::move(display_path)), out_(out) {}

  void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                        const clang::Diagnostic& info) override {
    DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level < clang::DiagnosticsEngine::Error) return;
    ParseDiagnostic d;
    d.severity = level == clang::DiagnosticsEngine::Fatal ? "fatal error" : "error";
    llvm::SmallString<256> message;
    info.FormatDiagnostic(message);
    d.message = message.str().str();
    d.file = display_path_;
    if (info.hasSourceManager() && info.getLocation().isValid()) {
      const clang::SourceManager& sm = info.getSourceManager();
      const clang::PresumedLoc p = sm.getPresumedLoc(sm.getFileLoc(info.getLocation()));
      if (p.isValid()) {
        const std::string name = p.getFilename();
        d.file = name == main_path_ ? display_path_ : name;
        d.line = static_cast<int>(p.getLine());
        d.column = static_cast<int>(p.getColumn());
      }
    }
    out_.push_back(std::move(d));
  }

 private:
  std::string main_path_;
  std::string display_path_;
  std::vector<ParseDiagnostic>& out_;
};

class Action : public clang::ASTFrontendAction {
 public:
  explicit Action(const std::function<void(clang::ASTContext&)>& on_ast, bool& ran)
      : on_ast_(on_ast), ran_(ran) {}
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance&,
                                                        llvm::StringRef) override {
    return std::make_unique<ForwardingConsumer>(on_ast_, ran_);
  }

 private:
  class ForwardingConsumer : public clang::ASTConsumer {
   public:
    ForwardingConsumer(const std::function<void(clang::ASTContext&)>& on_ast, bool& ran)
        : on_ast_(on_ast), ran_(ran) {}
    void HandleTranslationUnit(clang::ASTContext& context) override {
      if (context.getDiagnostics().hasErrorOccurred()) return;
      on_ast_(context);
      ran_ = true;
    }

   private:
    const std::function<void(clang::ASTContext&)>& on_ast_;
    bool& ran_;
  };
  const std::function<void(clang::ASTContext&)>& on_ast_;
  bool& ran_;
};

}  // namespace

std::vector<std::string> parse_command_line(const std::string& main_file) {
  return {
      "clang-tool",
      "-x",
      "cuda",
      "--cuda-device-only",
      "-nocudainc",
      "-nocudalib",
      "--cuda-gpu-arch=sm_90",
      std::string("--cuda-path=") + std::string(kVirtualRoot) + "/no-cuda-toolkit",
      "-Wno-unknown-cuda-version",
      "-std=c++17",
      "--target=x86_64-unknown-linux-gnu",
      "-nostdlibinc",
      "-resource-dir=" + resource_dir(),
      "-isystem",
      std::string(kIncludeDir),
      "-include",
      "cuda_parse_prelude.h",
      "-fno-caret-diagnostics",  // also keeps "N errors generated" off stderr
      "-fsyntax-only",
      main_file,
  };
}

bool parse_kernel(const KernelSourceInfo& kernel,
                  const std::function<void(clang::ASTContext&)>& on_ast,
                  std::vector<ParseDiagnostic>& diagnostics) {
  const std::string main_path = main_file_path(kernel);
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(
      llvm::vfs::getRealFileSystem());
  auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  overlay->pushOverlay(memory);
  memory->addFile(main_path, 0, llvm::MemoryBuffer::getMemBufferCopy(kernel.source, main_path));
  const std::string include_dir(kIncludeDir);
  memory->addFile(include_dir + "/cuda_parse_prelude.h", 0,
                  llvm::MemoryBuffer::getMemBuffer(
                      llvm::StringRef(kCudaParsePrelude.data(), kCudaParsePrelude.size()),
                      "cuda_parse_prelude.h", /*RequiresNullTerminator=*/false));
  // Every header of kaudit's CUDA model (mutators/cuda_model/manifest.txt) is a stand-in that
  // pulls in the prelude; any other is "file not found", as in the CPU build.
  for (const cuda_model::Header& header : cuda_model::manifest().headers) {
    memory->addFile(include_dir + "/" + header.name, 0,
                    llvm::MemoryBuffer::getMemBuffer(
                        "// kaudit stand-in header\n#include \"cuda_parse_prelude.h\"\n"));
  }
  auto files = llvm::makeIntrusiveRefCnt<clang::FileManager>(clang::FileSystemOptions(), overlay);

  const size_t before = diagnostics.size();
  Collector collector(main_path, kernel.file.empty() ? main_path : kernel.file, diagnostics);
  bool ran = false;
  clang::tooling::ToolInvocation invocation(parse_command_line(main_path),
                                            std::make_unique<Action>(on_ast, ran), files.get());
  invocation.setDiagnosticConsumer(&collector);
  const bool ok = invocation.run();
  if ((!ok || !ran) && diagnostics.size() == before) {
    diagnostics.push_back(ParseDiagnostic{kernel.file, 0, 0, "error",
                                          "clang could not parse the kernel (no diagnostic)"});
  }
  return ok && ran;
}

}  // namespace kaudit::mutators::detail
