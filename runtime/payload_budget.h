#pragma once
// Host memory that the requests in flight to workers may hold at once.
//
// A request's tensors are written down a pipe and read into the worker's memory, where they stay
// until the reply: at native shapes one oracle-mode request (up to five trials, each with its
// inputs, the recorded reference allocations' contents and the references) is several GB, and an
// audit has one request in flight per worker (docs/calibration/h200-2026-12-03-v0b: rmsnorm and
// conv2d at kernelbench-v0 ran a 128 GB host out of memory). A budget shared by an audit's
// runners makes a request wait until the bytes already in flight leave room for its own. Only the
// order in which runs happen changes, never what a run sees, so verdicts do not depend on it.
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace kaudit::runtime {

class PayloadBudget {
 public:
  explicit PayloadBudget(std::uint64_t bytes) : limit_(bytes) {}
  PayloadBudget(const PayloadBudget&) = delete;
  PayloadBudget& operator=(const PayloadBudget&) = delete;

  // Bytes held from acquire() until the ticket is destroyed.
  class Ticket {
   public:
    Ticket() = default;
    Ticket(Ticket&& o) noexcept : budget_(o.budget_), bytes_(o.bytes_) { o.budget_ = nullptr; }
    Ticket& operator=(Ticket&& o) noexcept;
    Ticket(const Ticket&) = delete;
    ~Ticket();

   private:
    friend class PayloadBudget;
    Ticket(PayloadBudget* b, std::uint64_t bytes) : budget_(b), bytes_(bytes) {}
    PayloadBudget* budget_ = nullptr;
    std::uint64_t bytes_ = 0;
  };

  // Waits until `bytes` fit beside what is in flight. A request larger than the whole budget
  // waits until nothing else is in flight and then runs alone: it is never refused (it would be
  // a verdict the kernel did not earn).
  Ticket acquire(std::uint64_t bytes);

  std::uint64_t limit() const { return limit_; }
  std::uint64_t in_flight() const;
  std::uint64_t peak() const;   // the most bytes in flight at once so far
  std::uint64_t waits() const;  // acquisitions that had to wait

 private:
  void release(std::uint64_t bytes);
  const std::uint64_t limit_;
  mutable std::mutex mu_;
  std::condition_variable freed_;
  std::uint64_t in_flight_ = 0, peak_ = 0, waits_ = 0;
};

// A quarter of this machine's memory (4 GiB where it cannot be read): the default budget, beside
// the pool's default quarter (audit/spill.h).
std::uint64_t default_payload_budget_bytes();

}  // namespace kaudit::runtime
