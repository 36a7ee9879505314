// The CPU emulator's runtime: grid execution (blocks in parallel, common/parallel.h), the fiber
// scheduler that gives each CUDA thread its own stack so barriers and warp collectives can suspend
// it, the counting barrier with divergence detection, and the host-side CUDA error state.
#include "runtime/cpu/emulator.h"

#include <dlfcn.h>
#include <link.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <vector>

#include "common/parallel.h"
#include "kaudit_cpu/abi.h"
#include "runtime/cpu/device_memory.h"
#include "runtime/cpu/fiber.h"
#include "runtime/cpu/fiber_stacks.h"
#include "runtime/cpu/guarded_allocator.h"
#include "runtime/cpu/shared_window.h"

extern "C" void* __tls_get_addr(void*);

__thread kaudit::rt::uint3_ threadIdx __attribute__((tls_model("initial-exec")));
__thread kaudit::rt::uint3_ blockIdx __attribute__((tls_model("initial-exec")));
__thread kaudit::rt::uint3_ blockDim __attribute__((tls_model("initial-exec")));
__thread kaudit::rt::uint3_ gridDim __attribute__((tls_model("initial-exec")));

namespace kaudit::rt {

__thread ThreadCtx* tls_ctx __attribute__((tls_model("initial-exec"))) = nullptr;

namespace {

constexpr unsigned char kPoison = 0xFF;  // reads of unwritten shared memory give NaN / -1
// Witness mode: poisoned bytes on each side of dynamic shared memory, so out-of-bounds shared reads
// stay deterministic. (Static __shared__ variables and oracle mode's dynamic buffer are laid out as
// a GPU's window instead: runtime/cpu/shared_window.h.)
constexpr std::size_t kSharedPad = 16384;
// The inaccessible guard at each end of a kernel library's TLS block (the front pad written per
// build, kaudit_cpu/tls_pad_back.s) and of oracle mode's dynamic shared memory.
constexpr std::size_t kStaticSharedGuard = cpu::kSharedGuardBytes, kPage = cpu::kSharedPageBytes;
constexpr int kCudaSuccess = 0, kCudaInvalidValue = 1, kCudaInvalidConfiguration = 9,
              kCudaLaunchFailure = 719;
constexpr std::size_t kDefaultMaxDynamicSmem = 48 * 1024, kOptinMaxDynamicSmem = 227 * 1024;

struct RunState {
  std::mutex mu;
  RunOptions options;
  std::atomic<int> last_error{0};
  std::atomic<int> sticky_error{0};
  std::atomic<std::size_t> max_dynamic_smem{kDefaultMaxDynamicSmem};
  std::uint64_t thread_units = 0;  // started by the run's launches so far (all from one host thread)
  std::atomic<int> launches{0};    // kernels the run started (a launch refused at configuration is none)
  std::atomic<int> library_calls{0};  // library compute calls through the torch facade
  std::vector<LaunchRecord> launch_log;  // the first kLaunchLogLimit launches, guarded by mu
  Fault fault;  // first fault, guarded by mu
};
RunState& run_state() {
  static RunState s;
  return s;
}

void record_fault(FaultKind kind, const std::string& message, int cuda_error) {
  RunState& s = run_state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.fault.kind == FaultKind::None) s.fault = Fault{kind, message};
  if (kind == FaultKind::LaunchError) {  // not sticky: the next launch may succeed
    s.last_error = cuda_error;
  } else {
    s.sticky_error = cuda_error;
    s.last_error = cuda_error;
  }
}

// ---- static __shared__ storage: the kernel library's TLS block ----------------------------------
struct ModuleTls {
  std::size_t modid = 0;
  std::size_t size = 0;
  // The block is laid out as the pads make it (page-aligned and a whole number of pages, nothing
  // initialized: runtime/cpu/shared_window.h): its ends are guards, the back one right after the
  // variables' window. Otherwise (a library built some other way) it is only poisoned.
  bool guarded = false;
};
struct TlsIndex {
  unsigned long module, offset;
};

ModuleTls find_module_tls(const void* anchor) {
  // Keyed by the anchor (one per launch site): dladdr and the program-header walk run once.
  static std::mutex mu;
  static std::map<const void*, ModuleTls> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(anchor);
  if (it != cache.end()) return it->second;
  Dl_info info{};
  if (!dladdr(anchor, &info) || !info.dli_fname) return cache[anchor] = {};
  struct Search {
    const char* name;
    ModuleTls result;
  } search{info.dli_fname, {}};
  dl_iterate_phdr(
      [](dl_phdr_info* p, std::size_t, void* data) -> int {
        auto* s = static_cast<Search*>(data);
        if (!p->dlpi_name || std::strcmp(p->dlpi_name, s->name) != 0) return 0;
        for (int i = 0; i < p->dlpi_phnum; ++i) {
          const auto& h = p->dlpi_phdr[i];
          if (h.p_type != PT_TLS) continue;
          const bool guarded = h.p_align >= kPage && h.p_filesz == 0 && h.p_memsz % kPage == 0 &&
                               h.p_memsz >= 2 * kStaticSharedGuard + cpu::kSharedReservedBytes;
          s->result = {p->dlpi_tls_modid, h.p_memsz, guarded};
        }
        return 1;
      },
      &search);
  return cache[anchor] = search.result;
}

// This OS thread's TLS blocks, each with the range poisoned before a CUDA block: between its
// guards, or the whole block when it has none. The guards go back to read-write when the thread
// ends, before glibc frees the blocks (it may write into a freed block).
struct StaticSharedGuards {
  std::map<char*, std::pair<char*, char*>> poison_range;
  // Oracle mode: the device session whose zeros the block holds (0: none yet).
  std::map<char*, std::uint64_t> session;
  ~StaticSharedGuards() {
    for (const auto& [block, range] : poison_range) {
      if (range.first == block) continue;  // no guards
      unguard_pages(block, kStaticSharedGuard);
      unguard_pages(range.second, kStaticSharedGuard);
    }
  }
};
thread_local StaticSharedGuards tls_static_shared_guards;

// Poisons this thread's copy of the library's static shared memory, guarding its ends the first
// time: an access past the variables' window (their size rounded up to 128 bytes), or more than 1
// to 5 KiB before them, faults (an out-of-bounds verdict under the memory checker, a crash without
// it), as it does on a GPU (runtime/cpu/shared_window.h), instead of reaching heap memory, whose
// contents depend on the worker's history. Called before each block of a kernel that declares
// static __shared__ memory.
// In oracle mode the memory is only zeroed, by the first block of a device session on this
// thread: later blocks see what the ones before them left, as on a GPU's SM.
void prepare_static_shared(const ModuleTls& m, bool oracle) {
  if (m.size == 0 || m.modid == 0) return;
  TlsIndex ti{m.modid, 0};
  char* const block = static_cast<char*>(__tls_get_addr(&ti));
  StaticSharedGuards& g = tls_static_shared_guards;
  auto it = g.poison_range.find(block);
  if (it == g.poison_range.end()) {
    // Both guards, or neither: the whole block is then poisoned instead (a library laid out some
    // other way, or pages that could not be protected).
    char* const back = block + m.size - kStaticSharedGuard;
    std::pair<char*, char*> range{block, block + m.size};
    if (m.guarded && (std::uintptr_t)block % kPage == 0 && guard_pages(block, kStaticSharedGuard)) {
      if (guard_pages(back, kStaticSharedGuard)) range = {block + kStaticSharedGuard, back};
      else unguard_pages(block, kStaticSharedGuard);
    }
    it = g.poison_range.emplace(block, range).first;
  }
  if (!oracle) {
    std::memset(it->second.first, kPoison, it->second.second - it->second.first);
    return;
  }
  std::uint64_t& session = g.session[block];
  if (session == device_session_serial()) return;
  session = device_session_serial();
  std::memset(it->second.first, 0, it->second.second - it->second.first);
}

// ---- fiber scheduler ----------------------------------------------------------------------------
enum class ThreadState { Ready, AtBarrier, AtWarp, Exited };

class BlockScheduler;

struct FiberThread {
  FiberThread(FiberStackPool& pool, BlockScheduler& scheduler) : pool(pool), scheduler(scheduler), stack(pool.take()) {}
  ~FiberThread() {
    fiber.reset();  // first: Boost.Context unwinds what the stack holds
    pool.give(stack);
  }
  FiberStackPool& pool;
  BlockScheduler& scheduler;
  FiberStack stack;
  FiberContext fiber;     // the suspended CUDA thread
  bool finished = false;  // its fiber made its last switch (unwound by reset_fibers)
  ThreadCtx ctx{};
  ThreadState state = ThreadState::Exited;
  int lane = 0, warp = 0;
  // barrier
  int site = 0, predicate = 0, mode = 0;
  // warp collective
  WarpOp op = WarpOp::Sync;
  unsigned mask = 0;
  std::uint64_t value = 0, result = 0;
  int param = 0, width = 32;
  bool is_signed = false;
};

struct AbortBlock {};  // unwinds a CUDA thread whose block has faulted

class BlockScheduler {
 public:
  // Runs one block. `oracle`: oracle mode's barrier semantics and interleaved warps (emulator.h).
  void run(const LaunchSpec& spec, RunThreadFn fn, void* launch, const ThreadCtx& proto, bool reversed,
           unsigned stack_bytes, bool oracle);

  // Oracle mode: a lane reached a step point of `kind` (rt::StepKind), which decides what the
  // pass costs the warp's clock (run_clocked).
  void note_step(int kind) {
    if (kind == kStepGlobalLoad) pass_loads_ = true;
    else pass_cost_ = 1;
  }
  // Called on a CUDA thread's fiber when it waits (barrier, warp collective).
  void yield(FiberThread& t) {
    switch_from(t);
    if (aborting_) throw AbortBlock{};
  }
  // A lane arrives at a warp collective (its op, mask and value are set) and waits.
  void wait_at_warp(FiberThread& t) {
    t.state = ThreadState::AtWarp;
    arrived_[t.warp] |= 1u << t.lane;
    needed_[t.warp] |= t.mask;
    yield(t);
  }

 private:
  // A pass runs the ready lanes of one warp in order. A lane that waits or exits hands over
  // straight to the next ready lane of the pass (one context switch per lane instead of two, the
  // scheduler in between); the last one returns to the scheduler. The order is the one a loop in
  // the scheduler would follow: only a lane itself, or the scheduler between passes, changes a
  // lane's state.
  FiberThread* pass_lane(std::size_t k) const {
    return threads_[pass_first_ + (pass_reversed_ ? pass_count_ - 1 - k : k)].get();
  }
  // The next ready lane of the pass (nullptr: the pass is over).
  FiberThread* next_in_pass() {
    while (pass_next_ < pass_count_) {
      FiberThread* t = pass_lane(pass_next_++);
      if (t->state == ThreadState::Ready) return t;
    }
    return nullptr;
  }
  // Runs a pass over warp lanes [first, first + count); true if any lane ran.
  bool run_pass(std::size_t first, std::size_t count, bool reversed);
  // Leaves lane `from` (suspended, or finished when its fiber returns) for the next ready lane
  // of the pass or the scheduler. Whoever is resumed stores `from`'s continuation in its slot.
  void switch_from(FiberThread& from) {
    FiberThread* next = aborting_ ? nullptr : next_in_pass();
    if (next) {
      enter_thread(&next->ctx);
      switch_context(from.fiber, next->fiber);
    } else {
      switch_context(from.fiber, sched_);
    }
  }
  // What each CUDA thread's fiber runs: the kernel once per block, until reset_fibers.
  static void lane_main(void* thread);
  void ensure_threads(std::size_t n, unsigned stack_bytes);
  bool try_release_barrier(std::string& divergence);
  bool try_complete_warp(int warp, std::string& divergence);
  std::string describe_deadlock() const;
  void reset_fibers();

  std::unique_ptr<FiberStackPool> stacks_;  // before threads_: their fibers go first
  std::vector<std::unique_ptr<FiberThread>> threads_;
  std::size_t n_ = 0;
  RunThreadFn fn_ = nullptr;
  void* launch_ = nullptr;
  bool aborting_ = false;
  bool oracle_ = false;
  unsigned stack_bytes_ = 0;
  FiberContext sched_;  // the scheduler, while a lane runs
  std::size_t pass_first_ = 0, pass_count_ = 0, pass_next_ = 0;
  bool pass_reversed_ = false;
  // Per warp, bit per lane: waiting at a warp collective, named in a waiting lane's mask, exited.
  // Kept with the lanes' states, so a check for a complete collective reads three words instead
  // of 32 lane records (it runs after every pass).
  static constexpr int kMaxWarps = 1024 / 32;
  // Oracle mode's clocks (docs/ORACLES.md, "Races"), in units of one statement that touches
  // shared memory: a pass that ended at a shared-memory step point costs 1; one that ended at a
  // collective, a barrier or the exit costs nothing; one that ended before a global load waits
  // for the load, which takes kLoadLatency and returns in issue order, one warp's load every
  // kLoadInterval (the warp with the earliest clock issues first).
  static constexpr std::uint64_t kLoadLatency = 8;
  static constexpr std::uint64_t kLoadInterval = 3;
  std::uint64_t clock_[kMaxWarps] = {};
  std::uint64_t last_return_ = 0;  // when the block's last load returned
  bool blocked_[kMaxWarps] = {};  // no ready lane at its last pass (until a barrier or collective completes)
  int pass_cost_ = 0;
  bool pass_loads_ = false;
  // Oracle mode's schedule: runs the warp with the earliest clock (the lowest index on a tie) one
  // pass, until no warp has a ready lane; true if any lane ran or a collective completed.
  bool run_clocked(int nwarps, std::string& divergence);
  unsigned arrived_[kMaxWarps] = {}, needed_[kMaxWarps] = {}, exited_[kMaxWarps] = {};
};

thread_local BlockScheduler* tls_scheduler = nullptr;

void BlockScheduler::reset_fibers() {
  // Each lane, resumed while aborting_, unwinds its kernel frames (AbortBlock) and makes its last
  // switch back here; its fiber then holds nothing and can go.
  aborting_ = true;
  for (auto& t : threads_) {
    if (!t->finished) {
      enter_thread(&t->ctx);
      switch_context(sched_, t->fiber);
    }
  }
  threads_.clear();
  aborting_ = false;
}

void BlockScheduler::lane_main(void* thread) {
  FiberThread& t = *static_cast<FiberThread*>(thread);
  BlockScheduler& s = t.scheduler;
  for (;;) {
    if (s.aborting_) break;
    try {
      s.fn_(s.launch_);
    } catch (const AbortBlock&) {
      break;
    } catch (const std::exception& e) {
      record_fault(FaultKind::DeviceException, std::string("exception in device code: ") + e.what(),
                   kCudaLaunchFailure);
    }
    t.state = ThreadState::Exited;
    s.exited_[t.warp] |= 1u << t.lane;
    s.switch_from(t);  // resumed again for the next block
  }
  // Unwound for good (reset_fibers): back to the scheduler, never to be resumed.
  t.state = ThreadState::Exited;
  t.finished = true;
  switch_context(t.fiber, s.sched_);
}

void BlockScheduler::ensure_threads(std::size_t n, unsigned stack_bytes) {
  if (stack_bytes != stack_bytes_ || !stacks_) {
    reset_fibers();
    stack_bytes_ = stack_bytes;
    stacks_ = std::make_unique<FiberStackPool>(stack_bytes);
  }
  while (threads_.size() < n) {
    auto t = std::make_unique<FiberThread>(*stacks_, *this);
    t->ctx.fiber_thread = t.get();
    t->fiber.start(t->stack, &BlockScheduler::lane_main, t.get());
    threads_.push_back(std::move(t));
  }
}

void BlockScheduler::run(const LaunchSpec& spec, RunThreadFn fn, void* launch, const ThreadCtx& proto,
                         bool reversed, unsigned stack_bytes, bool oracle) {
  oracle_ = oracle;
  n_ = (std::size_t)spec.block[0] * spec.block[1] * spec.block[2];
  ensure_threads(n_, stack_bytes);
  fn_ = fn;
  launch_ = launch;
  for (std::size_t i = 0; i < n_; ++i) {
    FiberThread& t = *threads_[i];
    void* self = t.ctx.fiber_thread;
    t.ctx = proto;
    t.ctx.fiber_thread = self;
    t.ctx.thread_idx = {unsigned(i % spec.block[0]), unsigned((i / spec.block[0]) % spec.block[1]),
                       unsigned(i / ((std::size_t)spec.block[0] * spec.block[1]))};
    t.lane = int(i % 32);
    t.warp = int(i / 32);
    t.state = ThreadState::Ready;
  }
  const int nwarps = int((n_ + 31) / 32);
  std::fill(arrived_, arrived_ + kMaxWarps, 0u);
  std::fill(needed_, needed_ + kMaxWarps, 0u);
  std::fill(exited_, exited_ + kMaxWarps, 0u);
  std::fill(clock_, clock_ + kMaxWarps, 0u);
  last_return_ = 0;
  std::fill(blocked_, blocked_ + kMaxWarps, false);
  std::string divergence;
  BlockScheduler* saved = tls_scheduler;
  tls_scheduler = this;
  // Witness mode: warp-major scheduling. Each warp runs as far as it can (through its warp
  // collectives) before the next warp starts, like independent warps on a GPU. A missing or
  // warp-scoped barrier then lets one warp read shared memory another warp has not written yet
  // (poison), deterministically.
  // Oracle mode: clocked (run_clocked). The warp with the earliest clock runs one pass, in which
  // each ready lane runs to its next step point (the lowering puts them before statements that
  // touch shared memory or load from global memory, and after shared-memory writes), barrier or
  // collective; the pass advances its clock. Warps advance together through shared-memory work
  // and drift apart by the order in which their global loads return.
  for (;;) {
    bool progressed = oracle_ && run_clocked(nwarps, divergence);
    for (int wk = 0; !oracle_ && wk < nwarps && divergence.empty(); ++wk) {
      const int w = reversed ? nwarps - 1 - wk : wk;
      const std::size_t first = (std::size_t)w * 32, count = std::min<std::size_t>(32, n_ - first);
      for (bool again = true; again && divergence.empty();) {
        progressed |= run_pass(first, count, reversed);
        again = try_complete_warp(w, divergence);
      }
    }
    if (!divergence.empty()) break;
    bool all_exited = true;
    for (std::size_t i = 0; i < n_ && all_exited; ++i) all_exited = threads_[i]->state == ThreadState::Exited;
    if (all_exited) break;
    for (int w = 0; w < nwarps && divergence.empty(); ++w) progressed |= try_complete_warp(w, divergence);
    if (divergence.empty() && try_release_barrier(divergence)) {
      progressed = true;
      // The barrier lets every warp go at the time the last one arrived.
      const std::uint64_t at = *std::max_element(clock_, clock_ + nwarps);
      std::fill(clock_, clock_ + nwarps, at);
    }
    if (!divergence.empty()) break;
    std::fill(blocked_, blocked_ + nwarps, false);
    if (!progressed) {
      divergence = describe_deadlock();
      break;
    }
  }
  tls_scheduler = saved;
  if (oracle_ && !divergence.empty()) {
    // Only a deadlock gets here in oracle mode: on a GPU the block waits until the watchdog.
    record_fault(FaultKind::Hang,
                 std::string(spec.kernel) + ": the block can make no progress, " + divergence +
                     " (block " + std::to_string(proto.block_idx.x) + "," + std::to_string(proto.block_idx.y) + "," +
                     std::to_string(proto.block_idx.z) + "); a GPU would hang until its watchdog",
                 kCudaLaunchFailure);
    reset_fibers();
  } else if (!divergence.empty()) {
    record_fault(FaultKind::BarrierDivergence,
                 std::string(spec.kernel) + ": " + divergence + " (block " + std::to_string(proto.block_idx.x) +
                     "," + std::to_string(proto.block_idx.y) + "," + std::to_string(proto.block_idx.z) + ")",
                 kCudaLaunchFailure);
    reset_fibers();
  }
}

bool BlockScheduler::run_clocked(int nwarps, std::string& divergence) {
  bool progressed = false;
  for (;;) {
    int w = -1;
    for (int k = 0; k < nwarps; ++k)
      if (!blocked_[k] && (w < 0 || clock_[k] < clock_[w])) w = k;
    if (w < 0) break;
    const std::size_t first = (std::size_t)w * 32, count = std::min<std::size_t>(32, n_ - first);
    pass_cost_ = 0;
    pass_loads_ = false;
    if (!run_pass(first, count, false)) {
      blocked_[w] = true;
    } else {
      progressed = true;
      if (pass_loads_) {
        clock_[w] = last_return_ = std::max(clock_[w] + kLoadLatency, last_return_ + kLoadInterval);
      } else {
        clock_[w] += (std::uint64_t)pass_cost_;
      }
    }
    if (try_complete_warp(w, divergence)) {
      progressed = true;
      blocked_[w] = false;
    }
    if (!divergence.empty()) break;
  }
  return progressed;
}

bool BlockScheduler::run_pass(std::size_t first, std::size_t count, bool reversed) {
  pass_first_ = first;
  pass_count_ = count;
  pass_reversed_ = reversed;
  pass_next_ = 0;
  FiberThread* t = next_in_pass();
  if (!t) return false;
  enter_thread(&t->ctx);
  switch_context(sched_, t->fiber);  // returns when the pass's last lane hands back
  return true;
}

// Releases the block barrier when every live thread waits at it. Returns true if it released.
bool BlockScheduler::try_release_barrier(std::string& divergence) {
  std::size_t waiting = 0, exited = 0, ready = 0;
  int site = -1, other_site = -1;
  for (std::size_t i = 0; i < n_; ++i) {
    const FiberThread& t = *threads_[i];
    if (t.state == ThreadState::AtBarrier) {
      ++waiting;
      if (site < 0) site = t.site;
      else if (t.site != site) other_site = t.site;
    } else if (t.state == ThreadState::Exited) {
      ++exited;
    } else if (t.state == ThreadState::Ready) {
      ++ready;
    }
  }
  if (waiting == 0 || ready > 0 || waiting + exited != n_) return false;
  // Oracle mode, sm_70 and later: threads that exited no longer count, and a barrier is one
  // resource whichever `__syncthreads` a thread reached it through.
  if (exited > 0 && !oracle_) {
    divergence = std::to_string(waiting) + " threads wait at __syncthreads (line " + std::to_string(site) +
                 ") but " + std::to_string(exited) + " threads of the block have exited";
    return false;
  }
  if (other_site >= 0 && !oracle_) {
    divergence = "threads wait at different barriers (lines " + std::to_string(site) + " and " +
                 std::to_string(other_site) + ")";
    return false;
  }
  int count = 0;
  for (std::size_t i = 0; i < n_; ++i)
    if (threads_[i]->state == ThreadState::AtBarrier) count += threads_[i]->predicate;
  for (std::size_t i = 0; i < n_; ++i) {
    FiberThread& t = *threads_[i];
    if (t.state != ThreadState::AtBarrier) continue;
    switch (t.mode) {
      case 1: t.result = (std::uint64_t)count; break;
      case 2: t.result = count == (int)waiting; break;
      case 3: t.result = count > 0; break;
      default: t.result = 0;
    }
    t.state = ThreadState::Ready;
  }
  return true;
}

std::uint64_t shuffle_source(const FiberThread& t, bool& valid) {
  // PTX shfl.sync semantics: segmask/clamp derived from the CUDA `width` argument.
  const unsigned width = (unsigned)t.width;
  const unsigned segmask = (32u - width) & 31u;
  const unsigned clamp = t.op == WarpOp::ShflUp ? 0u : 31u;
  const int lane = t.lane;
  const int max_lane = int((unsigned(lane) & segmask) | (clamp & ~segmask));
  const int min_lane = int(unsigned(lane) & segmask);
  const int b = t.param;
  int j = lane;
  bool p = false;
  switch (t.op) {
    case WarpOp::ShflUp: j = lane - b; p = j >= max_lane; break;
    case WarpOp::ShflDown: j = lane + b; p = j <= max_lane; break;
    case WarpOp::ShflXor: j = lane ^ b; p = j <= max_lane; break;
    case WarpOp::ShflIdx: j = int(unsigned(min_lane) | (unsigned(b) & ~segmask & 31u)); p = j <= max_lane; break;
    default: break;
  }
  valid = p && j >= 0 && j < 32;
  return valid ? (std::uint64_t)j : (std::uint64_t)lane;
}

// Completes the warp's collective once every lane named in the waiting lanes' masks has arrived.
bool BlockScheduler::try_complete_warp(int warp, std::string& divergence) {
  const std::size_t first = (std::size_t)warp * 32, count = std::min<std::size_t>(32, n_ - first);
  const unsigned waiting = arrived_[warp];
  if (!waiting) return false;
  const unsigned exists = count == 32 ? ~0u : (1u << count) - 1;
  // Oracle mode completes a collective without the lanes that exited (what a GPU returns for
  // them is undefined; a shuffle from one gives the caller its own value here).
  const unsigned missing = needed_[warp] & exists & ~waiting & (oracle_ ? ~exited_[warp] : ~0u);
  if (missing) {  // a needed lane has not arrived (yet); the lowest one decides
    const int lane = __builtin_ctz(missing);
    if (exited_[warp] & (1u << lane))
      divergence = "lane " + std::to_string(lane) + " of warp " + std::to_string(warp) +
                   " exited but is named in a warp collective's mask";
    return false;
  }
  arrived_[warp] = 0;
  needed_[warp] = 0;
  FiberThread* lanes[32] = {};
  for (std::size_t l = 0; l < count; ++l) lanes[l] = threads_[first + l].get();
  // Votes and reductions combine the lanes a lane's own mask names (a collective with a partial
  // mask, such as a cooperative-groups tile's, sees only those lanes, as on the GPU); lanes with the
  // same mask share one pass.
  struct Combined {
    std::uint64_t ballot = 0, sum = 0, mn = 0, mx = 0, band = ~0ull, bor = 0, bxor = 0;
    bool any = false, all = true;
  };
  const auto combine = [&](unsigned set) {
    Combined c;
    bool firstv = true;
    for (int l = 0; l < 32; ++l) {
      if (!(set & (1u << l))) continue;
      const FiberThread& t = *lanes[l];
      const std::uint64_t v = t.value;
      if (v & 0xffffffffull) c.ballot |= 1ull << l;
      c.any |= v != 0;
      c.all &= v != 0;
      c.sum += v;
      c.band &= v;
      c.bor |= v;
      c.bxor ^= v;
      const bool less = t.is_signed ? (std::int64_t)v < (std::int64_t)c.mn : v < c.mn;
      const bool more = t.is_signed ? (std::int64_t)v > (std::int64_t)c.mx : v > c.mx;
      if (firstv || less) c.mn = v;
      if (firstv || more) c.mx = v;
      firstv = false;
    }
    return c;
  };
  Combined combined;
  unsigned combined_set = 0;
  bool have_combined = false;
  for (int l = 0; l < 32; ++l) {
    if (!(waiting & (1u << l))) continue;
    FiberThread& t = *lanes[l];
    const unsigned set = t.mask & waiting;
    if (!have_combined || set != combined_set) {
      combined = combine(set);
      combined_set = set;
      have_combined = true;
    }
    const Combined& c = combined;
    switch (t.op) {
      case WarpOp::ShflIdx: case WarpOp::ShflUp: case WarpOp::ShflDown: case WarpOp::ShflXor: {
        bool valid = false;
        const int src = (int)shuffle_source(t, valid);
        t.result = (valid && (waiting & (1u << src))) ? lanes[src]->value : t.value;
        break;
      }
      case WarpOp::Ballot: t.result = c.ballot; break;
      case WarpOp::Any: t.result = c.any; break;
      case WarpOp::All: t.result = c.all; break;
      case WarpOp::ReduceAdd: t.result = c.sum; break;
      case WarpOp::ReduceMin: t.result = c.mn; break;
      case WarpOp::ReduceMax: t.result = c.mx; break;
      case WarpOp::ReduceAnd: t.result = c.band; break;
      case WarpOp::ReduceOr: t.result = c.bor; break;
      case WarpOp::ReduceXor: t.result = c.bxor; break;
      case WarpOp::Sync: t.result = 0; break;
    }
  }
  for (int l = 0; l < 32; ++l)
    if (waiting & (1u << l)) lanes[l]->state = ThreadState::Ready;
  return true;
}

std::string BlockScheduler::describe_deadlock() const {
  std::size_t at_barrier = 0, at_warp = 0, exited = 0;
  for (std::size_t i = 0; i < n_; ++i) {
    switch (threads_[i]->state) {
      case ThreadState::AtBarrier: ++at_barrier; break;
      case ThreadState::AtWarp: ++at_warp; break;
      case ThreadState::Exited: ++exited; break;
      default: break;
    }
  }
  std::ostringstream os;
  os << "deadlock: " << at_barrier << " threads at __syncthreads, " << at_warp
     << " at a warp collective, " << exited << " exited";
  return os.str();
}

FiberThread& current_fiber_thread(const char* what) {
  ThreadCtx* c = tls_ctx;
  if (!c || !c->fiber_thread || !tls_scheduler) {
    std::fprintf(stderr, "kaudit: %s reached in a kernel run without fibers (lowering missed it)\n", what);
    std::abort();
  }
  return *static_cast<FiberThread*>(c->fiber_thread);
}

// ---- per OS thread block resources --------------------------------------------------------------
// Oracle mode's dynamic shared memory, laid out as a GPU's window (runtime/cpu/shared_window.h):
// the buffer's size rounded up to 128 bytes ends at a page boundary with a guard after it, and the
// guard below ends 1 to 5 KiB before the buffer. One mapping per OS thread, sized for the largest
// buffer a launch may ask for; the front guard moves with the buffer's size, so the buffer's start
// moves too (its end stays): launches of different sizes in one session see what earlier blocks
// left at shifted offsets, where a GPU keeps the start. Everything a block can reach is zero at the
// start of a device session, then as the blocks before left it.
class DynamicSharedWindow {
 public:
  // The buffer of `bytes` for a launch in device session `session`; nullptr when the mapping or
  // its guards cannot be made (the caller then uses the witness layout, zeroed, without faults).
  unsigned char* place(std::size_t bytes, std::uint64_t session) {
    if (!base_ && !map()) return nullptr;
    char* const start = back_ - cpu::shared_window_bytes(bytes);
    char* const front_end = reinterpret_cast<char*>(
        (reinterpret_cast<std::uintptr_t>(start) - cpu::kSharedReservedBytes) / kPage * kPage);
    if (front_end > front_end_) {
      if (!guard_pages(front_end_, front_end - front_end_)) return nullptr;
    } else if (front_end < front_end_) {
      unguard_pages(front_end, front_end_ - front_end);
    }
    front_end_ = front_end;
    if (session != session_) {
      std::memset(front_end_, 0, back_ - front_end_);
      session_ = session;
      clean_from_ = front_end_;
    } else if (front_end_ < clean_from_) {
      // Pages a smaller launch of this session had guarded, last written in an earlier session.
      std::memset(front_end_, 0, clean_from_ - front_end_);
      clean_from_ = front_end_;
    }
    return reinterpret_cast<unsigned char*>(start);
  }

 private:
  bool map() {
    const std::size_t capacity = (kOptinMaxDynamicSmem + cpu::kSharedReservedBytes + 2 * kPage) / kPage * kPage;
    const std::size_t size = 2 * kStaticSharedGuard + capacity;
    void* m = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return false;
    char* const base = static_cast<char*>(m);
    char* const back = base + kStaticSharedGuard + capacity;
    if (!guard_pages(base, kStaticSharedGuard)) {
      munmap(m, size);
      return false;
    }
    if (!guard_pages(back, kStaticSharedGuard)) {
      unguard_pages(base, kStaticSharedGuard);
      munmap(m, size);
      return false;
    }
    base_ = base;
    back_ = back;
    front_end_ = clean_from_ = base + kStaticSharedGuard;
    return true;
  }
  char* base_ = nullptr;
  char* back_ = nullptr;       // the back guard's first byte
  char* front_end_ = nullptr;  // [base_, front_end_) is inaccessible
  // [clean_from_, back_) is zero since the session began or written by its blocks.
  char* clean_from_ = nullptr;
  std::uint64_t session_ = 0;
};

struct WorkerResources {
  ThreadCtx plain_ctx{};
  std::vector<unsigned char> dynamic_smem;  // witness mode, and oracle mode where the window fails
  DynamicSharedWindow oracle_dynamic_smem;
  std::uint64_t dynamic_smem_session = 0;  // oracle mode without the window: the session it was zeroed for
  BlockScheduler scheduler;
};
thread_local WorkerResources* tls_resources = nullptr;
WorkerResources& resources() {
  if (!tls_resources) tls_resources = new WorkerResources();  // lives as long as the OS thread
  return *tls_resources;
}

std::string launch_config_error(const LaunchSpec& s, std::size_t max_smem) {
  std::ostringstream os;
  const unsigned long long threads = (unsigned long long)s.block[0] * s.block[1] * s.block[2];
  if (s.block[0] == 0 || s.block[1] == 0 || s.block[2] == 0 || s.grid[0] == 0 || s.grid[1] == 0 || s.grid[2] == 0)
    os << "zero-sized grid or block";
  else if (threads > 1024)
    os << threads << " threads per block (limit 1024)";
  else if (s.block[0] > 1024 || s.block[1] > 1024 || s.block[2] > 64)
    os << "block dimension over its limit (1024, 1024, 64)";
  else if (s.grid[0] > 2147483647u || s.grid[1] > 65535u || s.grid[2] > 65535u)
    os << "grid dimension over its limit (2^31-1, 65535, 65535)";
  else if (s.dynamic_smem > max_smem)
    os << s.dynamic_smem << " bytes of dynamic shared memory (limit " << max_smem << ")";
  return os.str();
}

// Counts the launch's CUDA threads against the run's budget (RunOptions::thread_budget). Over it,
// the launch starts nothing and the run ends with a sticky WorkBudget fault. (After
// launch_config_error a grid has at most 2^63 blocks; times 1024 threads times the fiber weight
// that overflows 64 bits, hence the 128-bit product.)
bool within_work_budget(const LaunchSpec& spec, std::size_t nblocks, RunState& s) {
  using u128 = unsigned __int128;
  const u128 threads = (u128)nblocks * spec.block[0] * spec.block[1] * spec.block[2];
  const u128 units = threads * (spec.needs_fibers ? kFiberThreadWeight : 1);
  const u128 total = units + s.thread_units;
  const std::uint64_t budget = s.options.thread_budget;
  if (budget == 0 || total <= budget) {
    s.thread_units = total > UINT64_MAX ? UINT64_MAX : (std::uint64_t)total;
    return true;
  }
  const auto str = [](u128 v) { return v > UINT64_MAX ? std::string("over 2^64") : std::to_string((std::uint64_t)v); };
  std::string what = str(threads) + " CUDA threads";
  if (spec.needs_fibers)
    what += " run on fibers (its source has barriers or warp collectives; each counts " +
            std::to_string(kFiberThreadWeight) + ")";
  record_fault(FaultKind::WorkBudget,
               std::string("launch of ") + spec.kernel + " would start " + what + ": " + str(total) +
                   " thread units in the run, over its budget of " + std::to_string(budget) +
                   " (kaudit audit --thread-budget N raises it; 0: no limit)",
               kCudaLaunchFailure);
  return false;
}

}  // namespace

// ---- ABI implementation -------------------------------------------------------------------------
int launch(const LaunchSpec& spec, RunBlockFn run_block, RunThreadFn run_thread, void* launch_data) {
  RunState& s = run_state();
  if (s.sticky_error) return s.sticky_error;
  std::string bad = launch_config_error(spec, s.max_dynamic_smem);
  if (!bad.empty()) {
    const int err = spec.dynamic_smem > s.max_dynamic_smem ? kCudaInvalidValue : kCudaInvalidConfiguration;
    record_fault(FaultKind::LaunchError, std::string("launch of ") + spec.kernel + " failed: " + bad, err);
    return err;
  }
  const std::size_t gx = spec.grid[0], gy = spec.grid[1], nblocks = gx * gy * spec.grid[2];
  if (!within_work_budget(spec, nblocks, s)) return s.sticky_error;
  ++s.launches;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.launch_log.size() < kLaunchLogLimit)
      s.launch_log.push_back({{spec.grid[0], spec.grid[1], spec.grid[2]},
                              {spec.block[0], spec.block[1], spec.block[2]},
                              spec.dynamic_smem,
                              reinterpret_cast<std::uintptr_t>(spec.stream)});
  }
  const ModuleTls tls = spec.uses_static_smem ? find_module_tls(spec.module_anchor) : ModuleTls{};  // only to poison it
  const bool reversed = s.options.schedule == Schedule::Reversed;
  const bool oracle = s.options.mode == Mode::Oracle;
  const unsigned stack_bytes = s.options.fiber_stack_bytes;
  auto run_range = [&](std::size_t begin, std::size_t end) {
    WorkerResources& r = resources();
    // Witness mode: dynamic shared memory sits between two poisoned pads, so a read past either end
    // sees poison, never heap memory that depends on what ran before. Oracle mode: the GPU's window.
    const std::size_t padded = spec.dynamic_smem + 2 * kSharedPad;
    unsigned char* dynamic_smem = nullptr;
    if (spec.uses_dynamic_smem && oracle)
      dynamic_smem = r.oracle_dynamic_smem.place(spec.dynamic_smem, device_session_serial());
    const bool windowed = dynamic_smem != nullptr;
    if (spec.uses_dynamic_smem && oracle && !windowed) {
      // Not a verdict of the kernel's: the worker could not map or guard the window (address
      // space or map count exhausted). Said once per process, on stderr (a worker's stderr tail
      // is shown where that worker fails; `kaudit worker` run by hand shows it at once).
      static std::atomic<bool> said{false};
      if (!said.exchange(true))
        std::fprintf(stderr,
                     "kaudit worker: oracle mode's dynamic shared-memory window could not be mapped or guarded; "
                     "this process uses the witness layout instead, zeroed, where an access past the buffer does "
                     "not fault\n");
    }
    if (!windowed) {
      if (r.dynamic_smem.size() < padded) r.dynamic_smem.resize(padded);
      dynamic_smem = r.dynamic_smem.data() + kSharedPad;
    }
    for (std::size_t b = begin; b < end; ++b) {
      if (s.sticky_error) return;
      const std::size_t blk = reversed ? nblocks - 1 - b : b;
      // Only what the kernel can reach (a block is often a few microseconds of work: poisoning
      // 64 KB of pads it never reads was a measurable share of a run). Oracle mode zeroes it
      // once per device session and then leaves it as the blocks before left it.
      if (spec.uses_static_smem) prepare_static_shared(tls, oracle);
      if (spec.uses_dynamic_smem && !oracle) std::memset(r.dynamic_smem.data(), kPoison, padded);
      if (spec.uses_dynamic_smem && oracle && !windowed && r.dynamic_smem_session != device_session_serial()) {
        std::memset(r.dynamic_smem.data(), 0, r.dynamic_smem.size());
        r.dynamic_smem_session = device_session_serial();
      }
      ThreadCtx proto{};
      proto.block_idx = {unsigned(blk % gx), unsigned((blk / gx) % gy), unsigned(blk / (gx * gy))};
      proto.block_dim = {spec.block[0], spec.block[1], spec.block[2]};
      proto.grid_dim = {spec.grid[0], spec.grid[1], spec.grid[2]};
      proto.dynamic_smem = dynamic_smem;
      ThreadCtx* saved = tls_ctx;
      if (!spec.needs_fibers) {
        r.plain_ctx = proto;
        run_block(launch_data, &r.plain_ctx, reversed);
      } else {
        r.scheduler.run(spec, run_thread, launch_data, proto, reversed, stack_bytes, oracle);
      }
      enter_thread(saved);
    }
  };
  if (s.options.serial_blocks || nblocks == 1) {
    run_range(0, nblocks);
  } else {
    parallel::for_each_range(0, nblocks, 1, run_range);
  }
  return s.sticky_error.load();
}

int syncthreads(int site, int predicate, int mode) {
  FiberThread& t = current_fiber_thread("__syncthreads");
  t.state = ThreadState::AtBarrier;
  t.site = site;
  t.predicate = predicate;
  t.mode = mode;
  tls_scheduler->yield(t);
  return (int)t.result;
}

std::uint64_t warp_collective(WarpOp op, unsigned mask, std::uint64_t value, int param, int width, bool is_signed) {
  FiberThread& t = current_fiber_thread("a warp collective");
  if (width <= 0 || width > 32 || (width & (width - 1))) width = 32;
  t.op = op;
  t.mask = mask;
  t.value = value;
  t.param = param;
  t.width = width;
  t.is_signed = is_signed;
  tls_scheduler->wait_at_warp(t);
  return t.result;
}

int step_points_enabled = 0;

void step(int kind) {
  ThreadCtx* c = tls_ctx;
  if (!c || !c->fiber_thread || !tls_scheduler) return;  // host code, or a plain block
  // The lane stays ready: the pass goes on to the next lane, and this one resumes at the warp's
  // next pass.
  FiberThread& t = *static_cast<FiberThread*>(c->fiber_thread);
  tls_scheduler->note_step(kind);
  tls_scheduler->yield(t);
}

unsigned activemask() {
  ThreadCtx* c = tls_ctx;
  if (!c || !c->fiber_thread) return 0xffffffffu;
  return 0xffffffffu;  // all lanes of a warp are converged at every point the emulator can observe
}

void trap(const char* what) {
  std::fprintf(stderr, "kaudit: kernel trap: %s\n", what);
  std::fflush(stderr);
  std::abort();
}

int last_error(bool clear) {
  RunState& s = run_state();
  return clear ? s.last_error.exchange(s.sticky_error.load()) : s.last_error.load();
}
int device_synchronize() { return run_state().sticky_error.load(); }
void set_max_dynamic_smem(int bytes) {
  run_state().max_dynamic_smem = std::min<std::size_t>(std::max(bytes, 0), kOptinMaxDynamicSmem);
}
const char* error_string(int err) {
  switch (err) {
    case kCudaSuccess: return "no error";
    case kCudaInvalidValue: return "invalid argument";
    case 2: return "out of memory";
    case kCudaInvalidConfiguration: return "invalid configuration argument";
    case 700: return "an illegal memory access was encountered";
    case kCudaLaunchFailure: return "unspecified launch failure";
    default: return "unknown error";
  }
}

void begin_run(const RunOptions& options) {
  RunState& s = run_state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.options = options;
  step_points_enabled = options.mode == Mode::Oracle;
  s.last_error = 0;
  s.sticky_error = 0;
  s.max_dynamic_smem = kDefaultMaxDynamicSmem;
  s.thread_units = 0;
  s.launches = 0;
  s.library_calls = 0;
  s.launch_log.clear();
  s.fault = Fault{};
}

int launches_in_run() { return run_state().launches.load(); }
void note_library_call() { ++run_state().library_calls; }
int library_calls_in_run() { return run_state().library_calls.load(); }
std::vector<LaunchRecord> launch_log_of_run() {
  RunState& s = run_state();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.launch_log;
}

Fault end_run() {
  RunState& s = run_state();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.fault;
}

}  // namespace kaudit::rt
