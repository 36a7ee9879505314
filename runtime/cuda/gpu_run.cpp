#include "runtime/cuda/gpu_run.h"

#include <ATen/ATen.h>
#include <ATen/record_function.h>
#include <c10/util/Optional.h>
#include <dlfcn.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "runtime/worker.h"

namespace kaudit::cuda {

namespace {
// cudaError_t values (driver_types.h) of a launch the GPU refused without running it.
constexpr int kInvalidValue = 1, kInvalidConfiguration = 9, kInvalidDeviceFunction = 98, kNoKernelImageForDevice = 209,
              kLaunchOutOfResources = 701;

// Library compute calls of the candidate's host wrapper, counted as the CPU backend's torch facade
// counts them (runtime/cpu/tensor_facade.cpp: matmul, mm, bmm, addmm, linear; one per call the
// wrapper makes, not the products a call makes inside, so torch::linear is one call, not a linear
// and its addmm). Seen through ATen's RecordFunction callbacks, which the dispatcher runs for
// every operator call, from C++ as from Python (ATen/record_function.h), and only while the entry
// runs (GpuRunner::call): the harness's own ATen work is not the candidate's.
thread_local int library_depth = -1;  // -1: not counting; else library products entered and not left
thread_local int library_calls = 0;
bool is_library_compute(const char* op) {
  for (const char* name : {"aten::matmul", "aten::mm", "aten::bmm", "aten::addmm", "aten::linear"})
    if (std::strcmp(op, name) == 0) return true;
  return false;
}
struct InLibraryProduct final : at::ObserverContext {};
void count_library_calls() {
  static std::once_flag once;
  std::call_once(once, [] {
    at::addGlobalCallback(at::RecordFunctionCallback(
                              [](const at::RecordFunction& fn) -> std::unique_ptr<at::ObserverContext> {
                                if (library_depth < 0 || !is_library_compute(fn.name())) return nullptr;
                                if (library_depth++ == 0) ++library_calls;
                                return std::make_unique<InLibraryProduct>();
                              },
                              [](const at::RecordFunction&, at::ObserverContext* in_product) {
                                if (in_product != nullptr && library_depth > 0) --library_depth;
                              })
                              .scopes({at::RecordScope::FUNCTION}));
  });
}
}  // namespace

int library_calls_during(const std::function<void()>& f) {
  count_library_calls();
  struct Counting {
    Counting() {
      library_depth = 0;
      library_calls = 0;
    }
    ~Counting() { library_depth = -1; }
  } counting;
  f();
  return library_calls;
}

bool is_launch_refusal(int e) {
  // CUDA 13 refuses a block of more than 1024 threads with cudaErrorInvalidValue (measured on the
  // H200, driver 580); earlier versions with cudaErrorInvalidConfiguration.
  return e == kInvalidValue || e == kInvalidConfiguration || e == kInvalidDeviceFunction || e == kNoKernelImageForDevice ||
         e == kLaunchOutOfResources;
}

bool message_is_launch_refusal(const std::string& m) {
  for (const char* s : {"invalid configuration argument", "too many resources requested for launch",
                        "invalid device function", "no kernel image is available"})
    if (m.find(s) != std::string::npos) return true;
  return false;
}

const GpuRunner::Library& GpuRunner::load(const std::string& load_path, const std::string& key) {
  if (auto it = libraries_.find(key); it != libraries_.end()) return it->second;
  // RTLD_LOCAL: each library's symbols stay its own. Never closed: CUDA keeps its modules.
  void* h = dlopen(load_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) throw std::runtime_error(std::string("cannot load the kernel library: ") + dlerror());
  // dlopen() returns an object already loaded under the same name: a load path used before (a
  // descriptor number used again) would run another library's kernel. The worker ends a context's
  // process before that can happen (runtime/worker.cpp, LibraryCopies::size); this says so if not.
  for (const auto& [other, loaded] : libraries_)
    if (loaded.handle == h)
      throw std::runtime_error("the kernel library " + key + ", opened as " + load_path + ", is the library " + other +
                               " loaded before under that name (a bug in kaudit's worker: please report it)");
  Library lib;
  lib.handle = h;
  lib.invoke = reinterpret_cast<decltype(lib.invoke)>(dlsym(h, "kaudit_gpu_invoke"));
  lib.select = reinterpret_cast<decltype(lib.select)>(dlsym(h, "kaudit_gpu_select"));
  lib.finish = reinterpret_cast<decltype(lib.finish)>(dlsym(h, "kaudit_gpu_finish"));
  lib.limit_memory = reinterpret_cast<decltype(lib.limit_memory)>(dlsym(h, "kaudit_gpu_limit_memory"));
  lib.empty_cache = reinterpret_cast<decltype(lib.empty_cache)>(dlsym(h, "kaudit_gpu_empty_cache"));
  lib.launches = reinterpret_cast<decltype(lib.launches)>(dlsym(h, "kaudit_gpu_launches"));
  lib.launch_record = reinterpret_cast<decltype(lib.launch_record)>(dlsym(h, "kaudit_gpu_launch_record"));
  if (!lib.invoke || !lib.select || !lib.finish || !lib.limit_memory || !lib.empty_cache || !lib.launches)
    throw std::runtime_error("the kernel library " + key + " lacks kaudit_gpu_entry.h's functions");
  return libraries_.emplace(key, lib).first->second;
}

std::string GpuRunner::load_cuda_runtime() {
  // Loading runs libtorch_cuda's static initialisers, which register the CUDA backend but do not
  // initialise the driver (PyTorch initialises CUDA lazily, at the first device call), so the
  // process may still fork.
  const std::string lib = std::string(KAUDIT_TORCH_LIB_DIR) + "/libtorch_cuda.so";
  if (!dlopen(lib.c_str(), RTLD_NOW | RTLD_GLOBAL)) return std::string("cannot load ") + lib + ": " + dlerror();
  return {};
}

void GpuRunner::empty_cache() {
  // Any loaded library reaches the one allocator of this process (they share libtorch).
  if (!libraries_.empty()) libraries_.begin()->second.empty_cache();
}

std::string GpuRunner::context_error() {
  if (libraries_.empty()) return {};
  char msg[1024] = {0};
  const int e = libraries_.begin()->second.finish(msg, sizeof msg);
  if (e == 0 || is_launch_refusal(e)) return {};
  return msg;
}

std::string GpuRunner::warm_up() {
  if (std::string e = load_cuda_runtime(); !e.empty()) return e;
  try {
    (void)at::empty({1}, at::TensorOptions().device(at::Device(at::kCUDA, 0))).cpu();
  } catch (const std::exception& e) {
    return std::string("cannot create a CUDA context: ") + e.what();
  }
  return {};
}

void GpuRunner::prepare(const std::string& load_path, const std::string& key) {
  const Library& lib = load(load_path, key);
  if (memory_limited_) return;
  // The library brought libtorch's CUDA part; a first allocation initialises its caching
  // allocator, which must exist before its limit is set.
  at::empty({1}, at::TensorOptions().device(at::Device(at::kCUDA, 0)));
  lib.limit_memory(memory_fraction_);
  memory_limited_ = true;
}

nlohmann::json GpuRunner::call(const std::string& load_path, const std::string& key, int mutant,
                               const std::vector<runtime::EntryArg>& args, std::vector<at::Tensor>& outputs,
                               bool& context_lost) {
  context_lost = false;
  outputs.clear();
  prepare(load_path, key);
  const Library& lib = load(load_path, key);
  char err[4096] = {0};
  // What went wrong on the device, if anything: waits for it first.
  auto device_error = [&](nlohmann::json& reply) {
    char msg[1024] = {0};
    const int e = lib.finish(msg, sizeof msg);
    if (e == 0) return false;
    if (is_launch_refusal(e)) {
      reply = {{"status", "launch-error"}, {"message", msg}};
    } else {
      reply = {{"status", "crash"}, {"message", msg}};
      context_lost = true;
    }
    return true;
  };
  if (lib.select(mutant, err, sizeof err) != 0) {
    context_lost = true;
    return {{"status", "crash"}, {"message", std::string("cannot set the mutant switch: ") + err}};
  }
  std::vector<c10::optional<at::Tensor>> tensors;
  std::vector<double> values;
  std::vector<std::int64_t> kinds;
  for (const auto& a : args) {
    kinds.push_back(static_cast<std::int64_t>(a.kind));
    if (a.kind == runtime::EntryArg::Kind::Tensor) {
      tensors.emplace_back(a.tensor);
      values.push_back(0);
    } else {
      tensors.emplace_back(c10::nullopt);
      values.push_back(a.kind == runtime::EntryArg::Kind::Double ? a.d : static_cast<double>(a.i));
    }
  }
  nlohmann::json reply;
  int threw = 0;
  const int launched_before = lib.launches();
  const int calls = library_calls_during([&] { threw = lib.invoke(&tensors, &values, &kinds, &outputs, err, sizeof err); });
  // The library's own launches (include/kaudit_launch_count.h), as the CPU backend counts them.
  const int launched_after = launched_before < 0 ? -1 : lib.launches();
  const int launches = launched_before < 0 ? -1 : launched_after - launched_before;
  std::vector<rt::LaunchRecord> log;
  for (int n = launched_before; lib.launch_record && n >= 0 && n < launched_after && log.size() < rt::kLaunchLogLimit; ++n) {
    unsigned long long r[8];
    if (!lib.launch_record(n, r)) continue;
    log.push_back({{unsigned(r[0]), unsigned(r[1]), unsigned(r[2])}, {unsigned(r[3]), unsigned(r[4]), unsigned(r[5])},
                   r[6], static_cast<std::uintptr_t>(r[7])});
  }
  // What the run did goes with the call's replies, completed or not: a checker is asked about both.
  const auto with_facts = [&](nlohmann::json r) {
    r["library_calls"] = calls;
    r["launches"] = launches;
    r["launch_log"] = runtime::launch_log_json(log);
    return r;
  };
  if (device_error(reply)) {
    outputs.clear();
    return with_facts(reply);
  }
  if (threw) {
    outputs.clear();
    if (message_is_launch_refusal(err)) return with_facts({{"status", "launch-error"}, {"message", err}});
    return with_facts({{"status", "exception"}, {"message", err}});
  }
  return with_facts({{"status", "ok"}, {"message", ""}});
}

nlohmann::json GpuRunner::run(const std::string& load_path, const std::string& key, const nlohmann::json& req,
                              const std::vector<at::Tensor>& tensors, std::vector<at::Tensor>& outputs,
                              bool& context_lost) {
  prepare(load_path, key);
  const at::Device gpu(at::kCUDA, 0);
  // The copies' share of the run, for the audit's account of its time (ExchangeTimes): at
  // native shapes each run moves hundreds of MB each way. Both copies are synchronous (pageable
  // host memory), so the clock brackets them.
  const auto copies_from = std::chrono::steady_clock::now();
  // The second-call probe (runtime::RunRequest::first_call): each tensor argument's device buffer
  // holds the first call's values, then its own, in place.
  const auto first_call = req.find("first_call");
  std::vector<at::Tensor> own;
  std::vector<runtime::EntryArg> args;
  for (const auto& a : req.at("args")) {
    const auto kind = static_cast<runtime::EntryArg::Kind>(a.at("kind").get<int>());
    if (kind == runtime::EntryArg::Kind::Tensor) {
      const at::Tensor& mine = tensors.at(a.at("tensor").get<std::size_t>());
      if (first_call == req.end()) {
        args.push_back(runtime::EntryArg::of(mine.to(gpu)));
        continue;
      }
      const at::Tensor& first = tensors.at(first_call->at(own.size()).get<std::size_t>());
      if (!first.sizes().equals(mine.sizes()) || first.scalar_type() != mine.scalar_type())
        throw std::invalid_argument("the first call's tensor " + std::to_string(own.size()) +
                                    " is not of its argument's shape and dtype");
      own.push_back(mine);
      args.push_back(runtime::EntryArg::of(first.to(gpu)));
    } else if (kind == runtime::EntryArg::Kind::Double) args.push_back(runtime::EntryArg::of_double(a.at("value").get<double>()));
    else if (kind == runtime::EntryArg::Kind::Bool) args.push_back(runtime::EntryArg::of_bool(a.at("value").get<std::int64_t>() != 0));
    else args.push_back(runtime::EntryArg::of_int(a.at("value").get<std::int64_t>()));
  }
  double copy_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - copies_from).count();
  std::vector<at::Tensor> device_outputs;
  nlohmann::json reply = call(load_path, key, req.value("mutant", 0), args, device_outputs, context_lost);
  if (reply.at("status") != "ok") {
    if (first_call != req.end()) reply["first_call_failed"] = true;
    return reply;
  }
  if (first_call != req.end()) {
    std::size_t k = 0;
    for (auto& a : args)
      if (a.kind == runtime::EntryArg::Kind::Tensor) a.tensor.copy_(own.at(k++));
    device_outputs.clear();  // the first call's outputs go, as a harness's would (the kernel may keep them)
    reply = call(load_path, key, req.value("mutant", 0), args, device_outputs, context_lost);
    if (reply.at("status") != "ok") return reply;
  }
  const auto back_from = std::chrono::steady_clock::now();
  try {
    for (const auto& t : device_outputs) {
      if (!host_buffers_) {
        outputs.push_back(t.to(at::kCPU));
        continue;
      }
      at::Tensor host = host_buffers_->empty(t.sizes().vec(), t.scalar_type());
      host.copy_(t);  // every element written: the buffer's earlier contents never show
      outputs.push_back(host);
    }
  } catch (const std::exception& e) {
    outputs.clear();
    context_lost = true;
    return {{"status", "crash"}, {"message", std::string("copying the outputs back failed: ") + e.what()}};
  }
  copy_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - back_from).count();
  reply["copy_seconds"] = copy_seconds;
  return reply;
}

}  // namespace kaudit::cuda
