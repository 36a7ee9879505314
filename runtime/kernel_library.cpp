#include "runtime/kernel_library.h"

#include <dlfcn.h>

#include <stdexcept>

#include "kaudit_cpu/abi.h"
#include "runtime/cpu/tensor_facade.h"

namespace kaudit::runtime {
namespace {
struct ArgValueAbi {  // layout of kaudit::detail::ArgValue (prelude.h)
  int kind;
  std::int64_t i;
  double d;
  rt::TensorHandle* t;
};
}  // namespace

KernelLibrary::KernelLibrary(const std::filesystem::path& path) {
  // RTLD_LOCAL: several kernel libraries share a process without seeing each other's symbols.
  // Never dlclose'd: the emulator keeps guard pages inside each library's TLS block
  // (prepare_static_shared), and glibc would free a closed library's blocks with them protected.
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) throw std::runtime_error(std::string("cannot load kernel library: ") + dlerror());
  invoke_ = reinterpret_cast<InvokeFn>(dlsym(h, "kaudit_invoke"));
  if (!invoke_) throw std::runtime_error("kernel library " + path.string() + " has no kaudit_invoke entry shim");
  active_mutant_ = static_cast<int*>(dlsym(h, "kaudit_active_mutant"));
}

EntryResult KernelLibrary::call(const std::vector<EntryArg>& args, const rt::RunOptions& options) const {
  std::vector<ArgValueAbi> abi;
  std::vector<rt::TensorHandle*> handles;
  for (const auto& a : args) {
    ArgValueAbi v{(int)a.kind, a.i, a.d, nullptr};
    if (a.kind == EntryArg::Kind::Tensor) {
      handles.push_back(rt::wrap_tensor(a.tensor));
      v.t = handles.back();
    }
    abi.push_back(v);
  }
  if (options.active_mutant != 0 && !active_mutant_)
    throw std::runtime_error("a mutant was selected but the kernel library is not a schema");
  if (active_mutant_) *active_mutant_ = options.active_mutant;
  EntryResult r;
  char err[4096] = {0};
  rt::begin_run(options);
  const int rc = invoke_(abi.data(), abi.size(), &r.outputs,
                         [](void* sink, void* h) {
                           static_cast<std::vector<at::Tensor>*>(sink)->push_back(
                               rt::unwrap_tensor(static_cast<rt::TensorHandle*>(h)));
                         },
                         err, sizeof err);
  r.fault = rt::end_run();
  r.launches = rt::launches_in_run();
  r.library_calls = rt::library_calls_in_run();
  r.launch_log = rt::launch_log_of_run();
  for (auto* h : handles) rt::t_release(h);
  r.threw = rc != 0;
  r.message = err;
  return r;
}

}  // namespace kaudit::runtime
