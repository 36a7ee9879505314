#include "runtime/payload_budget.h"

#include "common/process.h"

#include <algorithm>

namespace kaudit::runtime {

PayloadBudget::Ticket::~Ticket() {
  if (budget_) budget_->release(bytes_);
}

PayloadBudget::Ticket& PayloadBudget::Ticket::operator=(Ticket&& o) noexcept {
  if (this != &o) {
    if (budget_) budget_->release(bytes_);
    budget_ = o.budget_;
    bytes_ = o.bytes_;
    o.budget_ = nullptr;
  }
  return *this;
}

PayloadBudget::Ticket PayloadBudget::acquire(std::uint64_t bytes) {
  std::unique_lock lock(mu_);
  const auto fits = [&] { return in_flight_ == 0 || (in_flight_ <= limit_ && bytes <= limit_ - in_flight_); };
  if (!fits()) {
    ++waits_;
    freed_.wait(lock, fits);
  }
  in_flight_ += bytes;
  peak_ = std::max(peak_, in_flight_);
  return Ticket(this, bytes);
}

void PayloadBudget::release(std::uint64_t bytes) {
  {
    std::lock_guard lock(mu_);
    in_flight_ -= std::min(bytes, in_flight_);
  }
  freed_.notify_all();
}

std::uint64_t PayloadBudget::in_flight() const {
  std::lock_guard lock(mu_);
  return in_flight_;
}
std::uint64_t PayloadBudget::peak() const {
  std::lock_guard lock(mu_);
  return peak_;
}
std::uint64_t PayloadBudget::waits() const {
  std::lock_guard lock(mu_);
  return waits_;
}

std::uint64_t default_payload_budget_bytes() { return quarter_of_machine_memory(); }

}  // namespace kaudit::runtime
