#include "common/cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <set>

#include "common/files.h"
#include "common/sha256.h"

namespace kaudit::cache {
namespace fs = std::filesystem;

namespace {
constexpr std::string_view kRecordTag = "kaudit-sha256 ";

// The cache's writes: all or nothing (files.h); false instead of an exception, the cache's way.
bool write_atomically(const fs::path& path, std::string_view bytes) {
  try {
    write_file_atomically(path, std::string(bytes));
    return true;
  } catch (const std::exception&) {
    return false;
  }
}
}  // namespace

std::string dir_problem(const fs::path& dir) {
  struct stat st{};
  if (stat(dir.c_str(), &st) != 0) return std::string("cannot use it: ") + std::strerror(errno);
  if (!S_ISDIR(st.st_mode)) return "it is not a folder";
  if (st.st_uid != geteuid())
    return "it belongs to another user (uid " + std::to_string(st.st_uid) + "; kaudit runs as uid " +
           std::to_string(geteuid()) + ")";
  if (st.st_mode & (S_IWGRP | S_IWOTH)) return "group or other users may write to it";
  return {};
}

fs::path prepare_dir(const fs::path& root, std::string_view sub) {
  if (root.empty())
    throw CacheDirError(
        "no cache folder: neither HOME nor XDG_CACHE_HOME is set; set KAUDIT_CACHE or pass --cache DIR "
        "(a folder of your own that no one else may write to)");
  const auto check = [](const fs::path& dir) {
    std::error_code ec;
    if (!fs::exists(dir, ec)) {
      // Parents as the user's umask has them (they may be shared, like ~/.cache); the cache's
      // own folders private.
      if (dir.has_parent_path()) fs::create_directories(dir.parent_path(), ec);
      if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
        throw CacheDirError("cannot create the cache folder " + dir.string() + ": " + std::strerror(errno) +
                            " (set KAUDIT_CACHE or pass --cache DIR)");
    }
    if (std::string problem = dir_problem(dir); !problem.empty())
      throw CacheDirError("refusing the cache folder " + dir.string() + ": " + problem +
                          ". Anyone who can write there can make kaudit load their code; use a folder of "
                          "your own (chmod 700) through KAUDIT_CACHE or --cache DIR");
  };
  check(root);
  if (sub.empty()) return root;
  const fs::path dir = root / sub;
  check(dir);
  return dir;
}

void report_damaged(const fs::path& file, const std::string& why) {
  static std::mutex mu;
  static std::set<std::string> reported;
  std::lock_guard<std::mutex> lock(mu);
  if (!reported.insert(file.string()).second) return;
  std::fprintf(stderr, "kaudit: damaged cache entry %s (%s): not used, recomputed\n", file.c_str(), why.c_str());
}

bool write_record(const fs::path& path, std::string_view body) {
  std::string text;
  text.reserve(body.size() + 80);
  text += kRecordTag;
  text += sha256_hex(body);
  text += '\n';
  text += body;
  return write_atomically(path, text);
}

std::optional<std::string> read_record(const fs::path& path) {
  auto text = read_file(path);
  if (!text) return std::nullopt;
  const std::size_t eol = text->find('\n');
  if (text->compare(0, kRecordTag.size(), kRecordTag) != 0 || eol != kRecordTag.size() + 64)
    return std::nullopt;  // no digest: an older kaudit's record, recomputed
  const std::string expected = text->substr(kRecordTag.size(), 64);
  std::string body = text->substr(eol + 1);
  if (sha256_hex(body) != expected) {
    report_damaged(path, "its contents do not match their SHA-256");
    std::error_code ec;
    fs::remove(path, ec);
    return std::nullopt;
  }
  return body;
}

fs::path digest_path(const fs::path& file) {
  fs::path p = file;
  p += ".sha256";
  return p;
}

std::string file_sha256(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return {};
  Sha256 h;
  char buf[1 << 16];
  while (in) {
    in.read(buf, sizeof buf);
    if (in.gcount() > 0) h.update(buf, static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) return {};
  return h.hex_digest();
}

bool seal(const fs::path& tmp, const fs::path& file, std::string* error) {
  std::error_code ec;
  const std::string digest = file_sha256(tmp);
  // The digest goes first: a reader that sees the file sees its digest.
  if (digest.empty() || !write_atomically(digest_path(file), digest + "\n")) {
    if (error) *error = "cannot write the digest of " + file.string();
    fs::remove(tmp, ec);
    return false;
  }
  fs::rename(tmp, file, ec);
  if (ec) {
    if (error) *error = "cannot move " + file.string() + " into the cache: " + ec.message();
    fs::remove(tmp, ec);
    return false;
  }
  return true;
}

bool verify(const fs::path& file, std::string* digest) {
  std::error_code ec;
  if (!fs::exists(file, ec)) return false;
  const auto recorded = read_file(digest_path(file));
  if (!recorded || recorded->size() < 64) return false;  // no digest: recomputed silently
  const std::string expected = recorded->substr(0, 64);
  const std::string actual = file_sha256(file);
  if (actual != expected) {
    // A writer of the same key may be between its two renames: look once more.
    const auto again = read_file(digest_path(file));
    if (!again || again->substr(0, 64) != actual) {
      report_damaged(file, actual.empty() ? "it cannot be read" : "its contents do not match their SHA-256");
      fs::remove(file, ec);
      fs::remove(digest_path(file), ec);
      return false;
    }
  }
  if (digest) *digest = actual;
  return true;
}

}  // namespace kaudit::cache
