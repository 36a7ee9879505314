// kaudit::oracle -- a small self-contained SHA-256 (FIPS 180-4).
//
// Used for content-addressed caches (exported references are keyed by the hash of everything that
// determines them). Self-contained so that the cache key does not depend on which crypto library
// a machine happens to have; it is not meant to be fast or constant-time.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace kaudit {

class Sha256 {
 public:
  Sha256();
  Sha256& update(const void* data, size_t size);
  Sha256& update(std::string_view s) { return update(s.data(), s.size()); }
  // Finishes the hash; the object must not be updated afterwards.
  std::array<uint8_t, 32> digest();
  // Lower-case hex of digest().
  std::string hex_digest();

 private:
  void block(const uint8_t* p);
  uint32_t h_[8];
  uint8_t buf_[64];
  size_t buf_len_ = 0;
  uint64_t total_ = 0;  // bytes
  bool done_ = false;
};

// One-shot hex SHA-256 of a byte string.
std::string sha256_hex(std::string_view data);

}  // namespace kaudit
