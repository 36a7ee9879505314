#include <cstdio>
#include "tools/cli_common.h"

#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace kaudit::cli {
std::filesystem::path default_cache_dir() {
  if (const char* c = std::getenv("KAUDIT_CACHE"); c && *c) return c;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::filesystem::path(x) / "kaudit";
  if (const char* h = std::getenv("HOME"); h && *h) return std::filesystem::path(h) / ".cache" / "kaudit";
  // Never a shared folder such as /tmp: anyone could plant a library there that kaudit would
  // load. Empty: a command that needs the cache stops with an error saying what to set.
  return {};
}
std::filesystem::path builtin_corpus_dir() { return KAUDIT_BUILTIN_CORPUS; }
std::filesystem::path builtin_suites_dir() { return KAUDIT_BUILTIN_SUITES; }
void write_file_atomically(const std::filesystem::path& path, const std::string& text) {
  const auto tmp = path.string() + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    f << text;
    if (!f) throw std::runtime_error("cannot write " + tmp);
  }
  std::filesystem::rename(tmp, path);
}
void note_unverified(const char* command, const corpus::LoadResult& loaded) {
  if (loaded.unverified.empty()) return;
  std::fprintf(stderr, "kaudit %s: left out %zu kernel(s) the verification gate rejected at import "
               "(--include-unverified takes them):\n", command, loaded.unverified.size());
  for (const auto& k : loaded.unverified)
    std::fprintf(stderr, "  %s: %s\n", k.id().c_str(), k.unverified.c_str());
}
}  // namespace kaudit::cli
