#include "runtime/cuda/device.h"

#include "runtime/cuda/gpu_run.h"

#include <ATen/ATen.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace kaudit::cuda {

std::string GpuInfo::describe() const {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s (%s, %.0f GB)", name.c_str(), arch().c_str(), memory_bytes / 1e9);
  return buf;
}

namespace {
GpuInfo probe() {
  GpuInfo info;
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    info.problem = "no GPU found: the NVIDIA driver's libcuda.so.1 cannot be loaded";
    return info;
  }
  // The driver API's C signatures (cuda.h), declared here so kaudit needs no CUDA headers.
  using Init = int (*)(unsigned);
  using Count = int (*)(int*);
  using Get = int (*)(int*, int);
  using Name = int (*)(char*, int, int);
  using Attribute = int (*)(int*, int, int);
  using TotalMem = int (*)(std::size_t*, int);
  using ErrorName = int (*)(int, const char**);
  auto init = reinterpret_cast<Init>(dlsym(h, "cuInit"));
  auto count = reinterpret_cast<Count>(dlsym(h, "cuDeviceGetCount"));
  auto get = reinterpret_cast<Get>(dlsym(h, "cuDeviceGet"));
  auto name = reinterpret_cast<Name>(dlsym(h, "cuDeviceGetName"));
  auto attribute = reinterpret_cast<Attribute>(dlsym(h, "cuDeviceGetAttribute"));
  auto total = reinterpret_cast<TotalMem>(dlsym(h, "cuDeviceTotalMem_v2"));
  auto error_name = reinterpret_cast<ErrorName>(dlsym(h, "cuGetErrorName"));
  if (!init || !count || !get || !name || !attribute || !total) {
    info.problem = "no GPU found: libcuda.so.1 lacks the driver API kaudit asks";
    return info;
  }
  auto failed = [&](const char* call, int rc) {
    const char* what = nullptr;
    if (error_name) error_name(rc, &what);
    info.problem = std::string("no GPU found: ") + call + " returned " + (what ? what : std::to_string(rc).c_str());
    return info;
  };
  int n = 0, dev = 0;
  if (int rc = init(0); rc != 0) return failed("cuInit", rc);
  if (int rc = count(&n); rc != 0) return failed("cuDeviceGetCount", rc);
  if (n == 0) {
    info.problem = "no GPU found: the NVIDIA driver reports no device";
    return info;
  }
  char buf[256] = {0};
  std::size_t bytes = 0;
  constexpr int kComputeCapabilityMajor = 75, kComputeCapabilityMinor = 76;  // CUdevice_attribute
  if (int rc = get(&dev, 0); rc != 0) return failed("cuDeviceGet", rc);
  if (int rc = name(buf, sizeof buf - 1, dev); rc != 0) return failed("cuDeviceGetName", rc);
  if (int rc = attribute(&info.major, kComputeCapabilityMajor, dev); rc != 0) return failed("cuDeviceGetAttribute", rc);
  if (int rc = attribute(&info.minor, kComputeCapabilityMinor, dev); rc != 0) return failed("cuDeviceGetAttribute", rc);
  if (int rc = total(&bytes, dev); rc != 0) return failed("cuDeviceTotalMem", rc);
  info.name = buf;
  info.memory_bytes = bytes;
  if (!std::filesystem::exists(std::filesystem::path(KAUDIT_TORCH_LIB_DIR) / "libtorch_cuda.so")) {
    info.problem = std::string("the libtorch kaudit was built against (") + KAUDIT_TORCH_LIB_DIR +
                   ") has no CUDA part (libtorch_cuda.so): build kaudit against PyTorch's CUDA libtorch (README, \"On a GPU\")";
    return info;
  }
  return info;
}
}  // namespace

const GpuInfo& probe_gpu() {
  static const GpuInfo info = probe();
  return info;
}

std::string prepare_host_process() {
  if (const std::string& problem = probe_gpu().problem; !problem.empty()) return problem;
  if (std::string e = GpuRunner::load_cuda_runtime(); !e.empty()) return e;
  // PyTorch reads the variable once, at its allocator's first allocation: set it for that one and
  // take it away again, so that no process started from here (a worker, the reference exporter,
  // an external checker modelling its own GPU harness) inherits it.
  const char* before = std::getenv("PYTORCH_NO_CUDA_MEMORY_CACHING");
  const std::string saved = before ? before : "";
  setenv("PYTORCH_NO_CUDA_MEMORY_CACHING", "1", 1);
  std::string error;
  try {
    (void)at::empty({1}, at::TensorOptions().device(at::Device(at::kCUDA, 0)));
  } catch (const std::exception& e) {
    error = std::string("cannot use device 0 from kaudit's own process: ") + e.what();
  }
  if (before) setenv("PYTORCH_NO_CUDA_MEMORY_CACHING", saved.c_str(), 1);
  else unsetenv("PYTORCH_NO_CUDA_MEMORY_CACHING");
  return error.substr(0, error.find('\n'));
}

std::int64_t device_free_bytes() {
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) return -1;
  using Retain = int (*)(void**, int);
  using Push = int (*)(void*);
  using Pop = int (*)(void**);
  using MemInfo = int (*)(std::size_t*, std::size_t*);
  using Release = int (*)(int);
  auto retain = reinterpret_cast<Retain>(dlsym(h, "cuDevicePrimaryCtxRetain"));
  auto push = reinterpret_cast<Push>(dlsym(h, "cuCtxPushCurrent_v2"));
  auto pop = reinterpret_cast<Pop>(dlsym(h, "cuCtxPopCurrent_v2"));
  auto info = reinterpret_cast<MemInfo>(dlsym(h, "cuMemGetInfo_v2"));
  auto release = reinterpret_cast<Release>(dlsym(h, "cuDevicePrimaryCtxRelease_v2"));
  if (!retain || !push || !pop || !info || !release || !probe_gpu().problem.empty()) return -1;
  void* ctx = nullptr;
  if (retain(&ctx, 0) != 0) return -1;
  std::size_t free = 0, total = 0;
  int rc = push(ctx);
  if (rc == 0) {
    rc = info(&free, &total);
    void* popped = nullptr;
    pop(&popped);
  }
  release(0);
  return rc == 0 ? static_cast<std::int64_t>(free) : -1;
}

}  // namespace kaudit::cuda
