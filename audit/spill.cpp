#include "audit/spill.h"

#include "common/process.h"
#include "runtime/shared_tensor.h"

#include <ATen/ATen.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace kaudit::audit {

at::Tensor spill_to_file(const at::Tensor& t, const std::filesystem::path& dir) {
  const at::Tensor c = t.contiguous();
  const std::size_t bytes = c.nbytes();
  if (bytes == 0) return c;
  std::string name = (dir / "pool-XXXXXX").string();
  const int fd = mkstemp(name.data());
  const auto fail = [&](const std::string& what) {
    return SpillError("cannot keep a pool tensor of " + std::to_string(bytes) + " bytes in " + dir.string() + " (" +
                      what + ": " + std::strerror(errno) +
                      "); free disk space there, or give the audit more memory (--pool-memory-gb)");
  };
  if (fd < 0) throw fail("mkstemp");
  // A read-only descriptor of the same file, opened before the name goes: what a worker is handed
  // (runtime/shared_tensor.h), so that no run can write the pool's file.
  const int read_only = open(name.c_str(), O_RDONLY | O_CLOEXEC);
  unlink(name.c_str());  // nameless from now on: no file is left behind, whatever happens next
  if (read_only < 0) {
    const auto e = fail("open");
    close(fd);
    throw e;
  }
  const char* data = static_cast<const char*>(c.data_ptr());
  for (std::size_t done = 0; done < bytes;) {
    const ssize_t n = pwrite(fd, data + done, bytes - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const auto e = fail("write");
      close(fd);
      close(read_only);
      throw e;
    }
    done += static_cast<std::size_t>(n);
  }
  void* map = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  if (map == MAP_FAILED) {
    const auto e = fail("mmap");
    close(fd);
    close(read_only);
    throw e;
  }
  close(fd);  // the mapping keeps the file
  // The read-only descriptor is kept (and the tensor handed to workers as the file) only where
  // sharing pays and the process has descriptors to spare; otherwise it travels as bytes.
  if (runtime::sharing_enabled() && bytes >= PoolMemory::kShareMinBytes && runtime::can_keep_descriptor(read_only))
    return runtime::shared_file_tensor(map, bytes, read_only, c.sizes(), c.strides(), c.options());
  close(read_only);
  return at::from_blob(
      map, c.sizes(), c.strides(), [bytes](void* p) { munmap(p, bytes); }, c.options());
}

at::Tensor PoolMemory::keep(const at::Tensor& t) {
  const std::uint64_t bytes = t.defined() ? t.nbytes() : 0;
  {
    std::lock_guard lock(mu_);
    if (in_memory_ + bytes <= budget_) {
      in_memory_ += bytes;
      // A large tensor goes into a sealed memfd, so that requests hand workers its file instead
      // of its bytes (runtime/shared_tensor.h); a small one costs more as a descriptor.
      return runtime::sharing_enabled() && bytes >= kShareMinBytes ? runtime::share_in_memfd(t) : t;
    }
  }
  at::Tensor spilled = spill_to_file(t, dir_);
  std::lock_guard lock(mu_);
  spilled_ += bytes;
  return spilled;
}

std::uint64_t PoolMemory::in_memory_bytes() const {
  std::lock_guard lock(mu_);
  return in_memory_;
}

std::uint64_t PoolMemory::spilled_bytes() const {
  std::lock_guard lock(mu_);
  return spilled_;
}

std::uint64_t default_pool_memory_bytes() { return quarter_of_machine_memory(); }

}  // namespace kaudit::audit
