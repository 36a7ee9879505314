#include "runtime/shared_tensor.h"

#include <ATen/ATen.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

namespace kaudit::runtime {
namespace {

// The descriptor behind each registered mapping, by the mapping's first byte.
struct Entry {
  int fd;
  std::size_t bytes;
  bool sealed;
};
std::mutex registry_mu;
std::map<const void*, Entry>& registry() {
  static auto* r = new std::map<const void*, Entry>();  // never destroyed: tensors may outlive statics
  return *r;
}

at::Tensor registered_tensor(void* map, std::size_t bytes, int fd, bool sealed, at::IntArrayRef sizes,
                             at::IntArrayRef strides, const at::TensorOptions& options) {
  {
    std::lock_guard lock(registry_mu);
    registry()[map] = {fd, bytes, sealed};
  }
  return at::from_blob(
      map, sizes, strides,
      [bytes](void* p) {
        int fd = -1;
        {
          std::lock_guard lock(registry_mu);
          if (auto it = registry().find(p); it != registry().end()) {
            fd = it->second.fd;
            registry().erase(it);
          }
        }
        munmap(p, bytes);
        if (fd >= 0) close(fd);
      },
      options);
}

}  // namespace

bool sharing_enabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("KAUDIT_SHARE_POOL");
    return !(v && std::string(v) == "0");
  }();
  return enabled;
}

// A descriptor number this high leaves too few for what the process must still open: the tensor
// travels as bytes instead.
bool can_keep_descriptor(int fd) {
  // A pool at native shapes holds hundreds of such tensors, more than a soft limit of 1,024 leaves
  // room for: raised to the hard limit once (which any process may do).
  static const bool raised = [] {
    rlimit files{};
    if (getrlimit(RLIMIT_NOFILE, &files) != 0 || files.rlim_cur >= files.rlim_max) return false;
    files.rlim_cur = files.rlim_max;
    return setrlimit(RLIMIT_NOFILE, &files) == 0;
  }();
  (void)raised;
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) != 0 || files.rlim_cur == RLIM_INFINITY) return true;
  return static_cast<rlim_t>(fd) + 256 < files.rlim_cur;
}

at::Tensor shared_file_tensor(void* map, std::size_t bytes, int read_only_fd, at::IntArrayRef sizes,
                              at::IntArrayRef strides, const at::TensorOptions& options) {
  return registered_tensor(map, bytes, read_only_fd, /*sealed=*/false, sizes, strides, options);
}

at::Tensor share_in_memfd(const at::Tensor& t) {
  const at::Tensor c = t.contiguous();
  const std::size_t bytes = c.nbytes();
  if (bytes == 0 || c.device().type() != at::kCPU) return t;
  const int fd = memfd_create("kaudit-pool", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return t;
  const auto give_up = [&] {
    close(fd);
    return t;
  };
  if (!can_keep_descriptor(fd) || ftruncate(fd, static_cast<off_t>(bytes)) != 0) return give_up();
  // pwrite, not a copy through a shared mapping: no page fault per 4 KiB of fresh shared memory
  // (1.9 against 1.2 GB/s here: bench/worker_bench, BM_ShareInMemfd).
  const char* src = static_cast<const char*>(c.data_ptr());
  for (std::size_t done = 0; done < bytes;) {
    const ssize_t n = pwrite(fd, src + done, bytes - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return give_up();
    done += static_cast<std::size_t>(n);
  }
  if (fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) != 0) return give_up();
  // Workers get a read-only descriptor of it: before Linux 6.7 the kernel refuses any shared
  // mapping, even a read-only one, through a writable descriptor of a write-sealed memfd.
  const int read_only = open(("/proc/self/fd/" + std::to_string(fd)).c_str(), O_RDONLY | O_CLOEXEC);
  if (read_only < 0) return give_up();
  void* map = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  close(fd);  // the mapping and the read-only descriptor keep the file
  if (map == MAP_FAILED) {
    close(read_only);
    return t;
  }
  return registered_tensor(map, bytes, read_only, /*sealed=*/true, c.sizes(), c.strides(), c.options());
}

std::optional<SharedBytes> shared_bytes(const at::Tensor& t) {
  if (!t.defined() || !t.is_contiguous() || t.nbytes() == 0 || t.device().type() != at::kCPU) return std::nullopt;
  const void* base = t.storage().data();
  std::lock_guard lock(registry_mu);
  const auto it = registry().find(base);
  if (it == registry().end()) return std::nullopt;
  const std::size_t offset = static_cast<std::size_t>(static_cast<const char*>(t.data_ptr()) - static_cast<const char*>(base));
  if (offset > it->second.bytes || t.nbytes() > it->second.bytes - offset) return std::nullopt;
  return SharedBytes{it->second.fd, offset, it->second.sealed};
}

std::optional<at::Tensor> map_shared(int fd, std::size_t offset, const std::vector<std::int64_t>& shape,
                                     at::ScalarType dtype, std::string& why) {
  struct stat st{};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    why = "a shared tensor's descriptor is not a regular file";
    return std::nullopt;
  }
  const int mode = fcntl(fd, F_GETFL);
  const int seals = fcntl(fd, F_GET_SEALS);
  if (mode < 0 || ((mode & O_ACCMODE) != O_RDONLY && (seals < 0 || !(seals & F_SEAL_WRITE)))) {
    why = "a shared tensor's descriptor allows writing to its file";
    return std::nullopt;
  }
  std::uint64_t bytes = at::elementSize(dtype);
  for (const std::int64_t d : shape)
    if (d < 0 || __builtin_mul_overflow(bytes, static_cast<std::uint64_t>(d), &bytes)) {
      why = "a shared tensor of an impossible shape";
      return std::nullopt;
    }
  std::uint64_t end = 0;
  if (__builtin_add_overflow(static_cast<std::uint64_t>(offset), bytes, &end) ||
      end > static_cast<std::uint64_t>(st.st_size)) {
    why = "a shared tensor's file is shorter than the tensor";
    return std::nullopt;
  }
  if (bytes == 0) return at::empty(shape, at::TensorOptions().dtype(dtype));
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t start = offset / page * page;
  const std::size_t length = static_cast<std::size_t>(end) - start;
  void* map = mmap(nullptr, length, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(start));
  if (map == MAP_FAILED) {
    why = std::string("cannot map a shared tensor: ") + std::strerror(errno);
    return std::nullopt;
  }
  return at::from_blob(
      static_cast<char*>(map) + (offset - start), shape, [map, length](void*) { munmap(map, length); },
      at::TensorOptions().dtype(dtype));
}

}  // namespace kaudit::runtime
