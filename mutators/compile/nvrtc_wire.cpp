#include "mutators/compile/nvrtc_wire.h"

#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include <nlohmann/json.hpp>

namespace kaudit::mutators::nvrtc_wire {

namespace {

bool write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    const ssize_t k = ::write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

bool read_all(int fd, char* p, size_t n) {
  while (n > 0) {
    const ssize_t k = ::read(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

uint32_t get_u32(const char* p) {
  const auto b = [p](int k) { return static_cast<uint32_t>(static_cast<unsigned char>(p[k])); };
  return b(0) | (b(1) << 8) | (b(2) << 16) | (b(3) << 24);
}

}  // namespace

bool write_frame(int fd, std::string_view payload) {
  const auto n = static_cast<uint32_t>(payload.size());
  const char head[4] = {static_cast<char>(n & 0xff), static_cast<char>((n >> 8) & 0xff),
                        static_cast<char>((n >> 16) & 0xff), static_cast<char>((n >> 24) & 0xff)};
  return write_all(fd, head, 4) && write_all(fd, payload.data(), payload.size());
}

bool read_frame(int fd, std::string& payload) {
  char head[4];
  if (!read_all(fd, head, 4)) return false;
  payload.resize(get_u32(head));
  return read_all(fd, payload.data(), payload.size());
}

bool take_frame(std::string& buffer, std::string& payload) {
  if (buffer.size() < 4) return false;
  const uint32_t n = get_u32(buffer.data());
  if (buffer.size() - 4 < n) return false;
  payload.assign(buffer, 4, n);
  buffer.erase(0, 4 + static_cast<size_t>(n));
  return true;
}

std::string encode_result(std::size_t index, const CompileResult& r) {
  nlohmann::json j;
  j["i"] = index;
  j["status"] = static_cast<int>(r.status);
  j["image"] = r.image_sha256;
  j["diag"] = r.first_diagnostic;
  j["log"] = r.log;
  j["ms"] = r.milliseconds;
  j["hit"] = r.cache_hit;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool decode_result(std::string_view frame, std::size_t& index, CompileResult& r) {
  const nlohmann::json j = nlohmann::json::parse(frame, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("i") || !j["i"].is_number_unsigned()) return false;
  index = j["i"].get<std::size_t>();
  const int status = j.value("status", -1);
  if (status < CompileResult::Ok || status > CompileResult::Unavailable) return false;
  r = CompileResult{};
  r.status = static_cast<CompileResult::Status>(status);
  r.image_sha256 = j.value("image", "");
  r.first_diagnostic = j.value("diag", "");
  r.log = j.value("log", "");
  r.milliseconds = j.value("ms", 0.0);
  r.cache_hit = j.value("hit", false);
  return true;
}

}  // namespace kaudit::mutators::nvrtc_wire
