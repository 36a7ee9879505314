// common/parallel.h: oneTBB forwards (KAUDIT_HAVE_TBB) or kaudit's own thread pool.
#include "common/parallel.h"

#include <algorithm>

#if KAUDIT_HAVE_TBB

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

namespace kaudit::parallel {

bool uses_tbb() { return true; }

unsigned max_concurrency() { return static_cast<unsigned>(std::max(1, tbb::this_task_arena::max_concurrency())); }

void for_each_index(std::size_t begin, std::size_t end, const std::function<void(std::size_t)>& body) {
  tbb::parallel_for(begin, end, body);
}

void for_each_range(std::size_t begin, std::size_t end, std::size_t grain,
                    const std::function<void(std::size_t, std::size_t)>& body, unsigned max_threads) {
  const auto loop = [&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(begin, end, std::max<std::size_t>(grain, 1)),
                      [&](const tbb::blocked_range<std::size_t>& r) { body(r.begin(), r.end()); });
  };
  if (max_threads == 0) {
    loop();
  } else {
    tbb::task_arena arena(static_cast<int>(max_threads));
    arena.execute(loop);
  }
}

struct Limit::State {
  explicit State(unsigned n) : control(tbb::global_control::max_allowed_parallelism, n) {}
  tbb::global_control control;
};
Limit::Limit(unsigned max_threads) : state_(new State(std::max(1u, max_threads))) {}
Limit::~Limit() = default;

}  // namespace kaudit::parallel

#else  // kaudit's own pool

#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

// How it works. A loop is a Job: its range is cut into chunks that the threads running it take,
// one at a time, from an atomic counter, so a slow chunk does not hold up the others. The caller
// always runs chunks itself and offers the job to a process-wide pool of helper threads, created
// on first use (one per CPU but the caller's); each helper that picks the job up runs chunks too,
// up to the job's thread count. When the counter passes the end the caller takes the job back
// from the pool and waits for the helpers still running a chunk. So a loop never waits for a
// helper to become free, and several threads may run loops at once (the audit builds the
// schemata of several kernels side by side), each finishing its own. A loop started on a helper
// (a body that itself loops) runs serially on that helper: that cannot deadlock, and no body in
// kaudit needs more.
//
// Helpers live as long as the process, like TBB's workers, because the emulator keeps per-OS-
// thread state across launches (fiber stacks, shared-memory buffers, guarded TLS blocks,
// runtime/cpu/emulator.cpp): a thread per launch would rebuild it every time. The pool belongs to
// the process that made it; after a fork (the worker is a zygote, runtime/worker.cpp) the child
// has none of its threads and makes its own pool on its first parallel loop.

namespace kaudit::parallel {
namespace {

unsigned cpus_available() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

std::atomic<unsigned> g_limit{0};  // Limit: 0 = none
thread_local bool t_helper = false;  // this thread is one of the pool's helpers

struct Job {
  const std::function<void(std::size_t, std::size_t)>* body;
  std::size_t end, chunk;
  std::atomic<std::size_t> next;
  std::atomic<bool> failed{false};
  std::exception_ptr error;  // written by the thread that set `failed`
  // Guarded by the pool's mutex:
  unsigned seats = 0;   // helpers that may still join
  unsigned active = 0;  // helpers running chunks
  std::condition_variable helpers_left;
};

// Runs chunks until none is left or a body has thrown; records the first exception.
void run_chunks(Job& job) {
  try {
    while (!job.failed.load(std::memory_order_relaxed)) {
      const std::size_t b = job.next.fetch_add(job.chunk);
      if (b >= job.end) return;
      (*job.body)(b, std::min(job.end, b + job.chunk));
    }
  } catch (...) {
    if (!job.failed.exchange(true)) job.error = std::current_exception();
  }
}

class Pool {
 public:
  explicit Pool(unsigned helpers) {
    for (unsigned i = 0; i < helpers; ++i) std::thread([this] { serve(); }).detach();
  }

  // Runs `job` on the calling thread and on up to job.seats helpers; returns when no thread runs it.
  void run(Job& job) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(&job);
    }
    wake_.notify_all();
    run_chunks(job);
    std::unique_lock<std::mutex> lock(mu_);
    // Every helper that joined did so under the mutex, before this: once the job is out of the
    // queue no further one can, and `active` counts all that may still touch it.
    queue_.erase(std::remove(queue_.begin(), queue_.end(), &job), queue_.end());
    job.helpers_left.wait(lock, [&] { return job.active == 0; });
  }

 private:
  void serve() {
    t_helper = true;
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      wake_.wait(lock, [&] { return !queue_.empty(); });
      Job& job = *queue_.front();
      if (--job.seats == 0) queue_.pop_front();
      ++job.active;
      lock.unlock();
      run_chunks(job);
      lock.lock();
      if (--job.active == 0) job.helpers_left.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<Job*> queue_;  // jobs with seats left
};

// Never destroyed: helpers wait on its mutex until the process ends.
Pool& pool() {
  static std::mutex mu;
  static Pool* pool = nullptr;
  static pid_t owner = 0;
  std::lock_guard<std::mutex> lock(mu);
  if (pool == nullptr || owner != getpid()) {  // a forked child: the parent's helpers are not here
    pool = new Pool(cpus_available() - 1);     // (the parent's pool is left alone: its mutex may be held)
    owner = getpid();
  }
  return *pool;
}

}  // namespace

bool uses_tbb() { return false; }

unsigned max_concurrency() {
  const unsigned limit = g_limit.load();
  return limit == 0 ? cpus_available() : std::min(limit, cpus_available());
}

void for_each_range(std::size_t begin, std::size_t end, std::size_t grain,
                    const std::function<void(std::size_t, std::size_t)>& body, unsigned max_threads) {
  if (begin >= end) return;
  const std::size_t n = end - begin;
  unsigned threads = t_helper ? 1 : max_concurrency();
  if (max_threads > 0) threads = std::min(threads, max_threads);
  grain = std::max<std::size_t>(grain, 1);
  if (threads == 1 || n <= grain) {
    body(begin, end);
    return;
  }
  // About 8 chunks per thread (as TBB's auto partitioner aims for): few enough that taking one
  // costs nothing next to running it (an emulator block is microseconds), enough to even out
  // chunks of unequal cost.
  Job job;
  job.body = &body;
  job.end = end;
  job.chunk = std::max(grain, n / (std::size_t(threads) * 8));
  job.next = begin;
  job.seats = threads - 1;
  pool().run(job);
  if (job.error) std::rethrow_exception(job.error);
}

void for_each_index(std::size_t begin, std::size_t end, const std::function<void(std::size_t)>& body) {
  for_each_range(begin, end, 1, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) body(i);
  });
}

struct Limit::State {
  unsigned previous;
};
// Nested limits: the innermost applies until it ends (the worker sets one, for its lifetime).
Limit::Limit(unsigned max_threads) : state_(new State{g_limit.exchange(std::max(1u, max_threads))}) {}
Limit::~Limit() { g_limit.store(state_->previous); }

}  // namespace kaudit::parallel

#endif
