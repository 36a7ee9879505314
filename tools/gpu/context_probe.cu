// What a fresh CUDA context costs on this machine, and what a crashing kernel costs the others: the
// questions behind the CUDA worker's restarts (runtime/worker.cpp, serve_gpu), which an audit of a
// crash-heavy kernel spends most of its time waiting for. Driver API only, no PyTorch.
// Build and run (tools/gpu/context_probe.sh does both):
//   nvcc -O2 -o context_probe tools/gpu/context_probe.cu -lcuda
//   context_probe create        one line: ms for cuInit, primary context, module load, first
//                               allocation, and the process's exit after cuCtx teardown is left to it
//   context_probe crash         creates a context, faults (a write a terabyte out), prints ms to the
//                               error and exits
//   context_probe latency S     a tiny launch + synchronize in a loop for S seconds; one line per
//                               0.5 s: launches done, median and worst round trip in ms
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// Two kernels as PTX: one that writes its own slot, one that writes a terabyte past it.
const char* kPtx = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry touch(.param .u64 p) {
  .reg .u64 %a;
  .reg .u32 %v;
  ld.param.u64 %a, [p];
  cvta.to.global.u64 %a, %a;
  mov.u32 %v, 1;
  st.global.u32 [%a], %v;
  ret;
}
.visible .entry wild(.param .u64 p) {
  .reg .u64 %a;
  .reg .u32 %v;
  ld.param.u64 %a, [p];
  cvta.to.global.u64 %a, %a;
  add.u64 %a, %a, 1099511627776;
  mov.u32 %v, 1;
  st.global.u32 [%a], %v;
  ret;
}
)";

void check(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  const char* name = nullptr;
  cuGetErrorName(r, &name);
  std::printf("%s: %s\n", what, name ? name : "?");
  std::fflush(stdout);
  std::exit(1);
}

struct Context {
  CUcontext ctx{};
  CUmodule module{};
  CUdeviceptr buffer{};
  double init_ms = 0, ctx_ms = 0, module_ms = 0, alloc_ms = 0;
};

Context make_context() {
  Context c;
  auto t = Clock::now();
  check(cuInit(0), "cuInit");
  c.init_ms = ms_since(t);
  CUdevice dev;
  check(cuDeviceGet(&dev, 0), "cuDeviceGet");
  t = Clock::now();
  check(cuDevicePrimaryCtxRetain(&c.ctx, dev), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(c.ctx), "cuCtxSetCurrent");
  c.ctx_ms = ms_since(t);
  t = Clock::now();
  check(cuModuleLoadData(&c.module, kPtx), "cuModuleLoadData");
  c.module_ms = ms_since(t);
  t = Clock::now();
  check(cuMemAlloc(&c.buffer, 1 << 20), "cuMemAlloc");
  c.alloc_ms = ms_since(t);
  return c;
}

CUresult launch(const Context& c, const char* name) {
  CUfunction f;
  check(cuModuleGetFunction(&f, c.module, name), "cuModuleGetFunction");
  CUdeviceptr p = c.buffer;
  void* args[] = {&p};
  CUresult r = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr);
  if (r != CUDA_SUCCESS) return r;
  return cuCtxSynchronize();
}
}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "create";
  const auto start = Clock::now();
  if (std::strcmp(mode, "create") == 0) {
    Context c = make_context();
    check(launch(c, "touch"), "touch");
    std::printf("create: init %.1f ms, context %.1f ms, module %.1f ms, alloc %.1f ms, total %.1f ms\n", c.init_ms,
                c.ctx_ms, c.module_ms, c.alloc_ms, ms_since(start));
    return 0;
  }
  if (std::strcmp(mode, "crash") == 0) {
    Context c = make_context();
    const auto t = Clock::now();
    const CUresult r = launch(c, "wild");
    const char* name = nullptr;
    cuGetErrorName(r, &name);
    std::printf("crash: context ready after %.1f ms, fault reported after %.1f ms (%s)\n",
                c.init_ms + c.ctx_ms + c.module_ms + c.alloc_ms, ms_since(t), name ? name : "?");
    std::fflush(stdout);
    return 0;  // the driver tears the broken context down at exit
  }
  if (std::strcmp(mode, "latency") == 0) {
    const double seconds = argc > 2 ? std::atof(argv[2]) : 10;
    Context c = make_context();
    const auto t0 = Clock::now();
    auto window = Clock::now();
    std::vector<double> trips;
    while (ms_since(t0) < seconds * 1000) {
      const auto t = Clock::now();
      check(launch(c, "touch"), "touch");
      trips.push_back(ms_since(t));
      if (ms_since(window) >= 500) {
        std::sort(trips.begin(), trips.end());
        std::printf("latency t=%.1f s: %zu launches, median %.3f ms, worst %.1f ms\n", ms_since(t0) / 1000,
                    trips.size(), trips[trips.size() / 2], trips.back());
        std::fflush(stdout);
        trips.clear();
        window = Clock::now();
      }
    }
    return 0;
  }
  std::fprintf(stderr, "usage: context_probe create|crash|latency SECONDS\n");
  return 2;
}
