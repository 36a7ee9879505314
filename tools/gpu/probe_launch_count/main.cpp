// tools/gpu/probe_launch_count/run.sh builds and runs this. Probe: can a CUDA worker count (a) the candidate library's own kernel launches, through CUPTI's
// runtime-API callbacks and dladdr of the launched function, with the library's cudart static;
// (b) library compute calls through ATen's RecordFunction callbacks.
#include <ATen/ATen.h>
#include <ATen/record_function.h>
#include <cupti.h>
#include <dlfcn.h>
#include <cstdio>
#include <cstring>
#include <atomic>
#include <string>
#include <map>
#include <mutex>

static std::atomic<int> rt_launch{0}, rt_launch_in_lib{0}, drv_launch{0};
static void* lib_base = nullptr;
static std::mutex mu;
static std::map<std::string, int> ops;
static std::map<std::string, int> grids;

static void CUPTIAPI callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  if (cb->callbackSite != CUPTI_API_ENTER) return;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    const void* func = nullptr;
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000) {
      auto* p = static_cast<const cudaLaunchKernel_v7000_params*>(cb->functionParams);
      func = p->func;
      std::lock_guard l(mu);
      grids[std::to_string(p->gridDim.x) + "x" + std::to_string(p->gridDim.y) + "x" + std::to_string(p->gridDim.z)]++;
    } else if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000) {
      func = static_cast<const cudaLaunchKernel_ptsz_v7000_params*>(cb->functionParams)->func;
    } else {
      return;
    }
    ++rt_launch;
    Dl_info info{};
    if (func && dladdr(func, &info) && info.dli_fbase == lib_base) ++rt_launch_in_lib;
    std::printf("  runtime launch cbid=%d symbol=%s func=%p in=%s\n", (int)cbid, cb->symbolName ? cb->symbolName : "?", func,
                (func && dladdr(func, &info)) ? info.dli_fname : "?");
  } else if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    ++drv_launch;
  }
}

int main(int argc, char** argv) {
  CUpti_SubscriberHandle sub;
  int rc = cuptiSubscribe(&sub, (CUpti_CallbackFunc)callback, nullptr);
  std::printf("cuptiSubscribe rc=%d\n", rc);
  rc = cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API);
  std::printf("enable runtime rc=%d\n", rc);
  cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
  cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx);
  static thread_local int counting = 0;
  at::addGlobalCallback(at::RecordFunctionCallback(
      [](const at::RecordFunction& fn) -> std::unique_ptr<at::ObserverContext> {
        std::lock_guard l(mu);
        ops[std::string(fn.name()) + (counting ? " (nested)" : "")]++;
        ++counting;
        return nullptr;
      },
      [](const at::RecordFunction&, at::ObserverContext*) { --counting; }));
  void* h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) { std::printf("dlopen: %s\n", dlerror()); return 1; }
  auto run = (int (*)(float*, int))dlsym(h, "run");
  Dl_info info{};
  dladdr((void*)run, &info);
  lib_base = info.dli_fbase;
  auto x = at::zeros({1000}, at::TensorOptions().device(at::kCUDA));
  std::printf("before lib: rt=%d in_lib=%d drv=%d\n", rt_launch.load(), rt_launch_in_lib.load(), drv_launch.load());
  int e = run(x.data_ptr<float>(), 1000);
  std::printf("after lib (err %d): rt=%d in_lib=%d drv=%d sum=%f\n", e, rt_launch.load(), rt_launch_in_lib.load(), drv_launch.load(), x.sum().item<float>());
  auto a = at::randn({64, 64}, at::TensorOptions().device(at::kCUDA));
  auto y = at::matmul(a, a);
  auto z = at::addmm(y, a, a);
  auto w = at::linear(a, a);
  auto hlf = at::matmul(a.to(at::kHalf), a.to(at::kHalf));
  cudaDeviceSynchronize();
  std::printf("after torch: rt=%d in_lib=%d drv=%d\n", rt_launch.load(), rt_launch_in_lib.load(), drv_launch.load());
  for (auto& [k, v] : ops) std::printf("  op %s: %d\n", k.c_str(), v);
  for (auto& [k, v] : grids) std::printf("  grid %s: %d\n", k.c_str(), v);
  return 0;
}
