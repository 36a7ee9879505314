#include "tools/cli_common.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "oracle/reference.h"
#include "runtime/cuda/device.h"

namespace kaudit::cli {
namespace {
std::string shown(const std::string& text) {  // a bad value as the error shows it: bounded
  return "'" + (text.size() > 40 ? text.substr(0, 40) + "..." : text) + "'";
}
std::string real_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", v);  // 1048576, not 1.04858e+06
  return buf;
}
}  // namespace

unsigned long long parse_count_flag(const std::string& flag, const std::string& text, unsigned long long min,
                                    unsigned long long max) {
  unsigned long long v = 0;
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, v);
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || r.ec != std::errc() || r.ptr != end || v < min || v > max)
    throw std::invalid_argument(flag + " takes a whole number from " + std::to_string(min) + " to " +
                                std::to_string(max) + ", not " + shown(text));
  return v;
}

double parse_real_flag(const std::string& flag, const std::string& text, double min, double max) {
  // strtod accepts "nan", "inf", hex and leading spaces: only plain decimal forms pass here.
  const bool plain = !text.empty() && text.find_first_not_of("0123456789.eE+-") == std::string::npos;
  char* end = nullptr;
  const double v = plain ? std::strtod(text.c_str(), &end) : 0.0;
  if (!plain || end != text.c_str() + text.size() || !std::isfinite(v) || v < min || v > max)
    throw std::invalid_argument(flag + " takes a number from " + real_text(min) + " to " + real_text(max) +
                                ", not " + shown(text));
  return v;
}

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
std::string flag_value(const std::vector<std::string>& args, std::size_t& i, const char* flag) {
  if (i + 1 >= args.size()) throw std::invalid_argument(std::string(flag) + " needs a value");
  return args[++i];
}
void note_unverified(const char* command, const corpus::LoadResult& loaded) {
  if (loaded.unverified.empty()) return;
  std::fprintf(stderr, "kaudit %s: left out %zu kernel(s) the verification gate rejected at import "
               "(--include-unverified takes them):\n", command, loaded.unverified.size());
  for (const auto& k : loaded.unverified)
    std::fprintf(stderr, "  %s: %s\n", k.id().c_str(), k.unverified.c_str());
}
bool parse_backend_flag(const std::string& text) {
  if (text == "cpu") return false;
  if (text == "cuda") return true;
  throw std::invalid_argument("--backend takes cpu or cuda, not '" + text + "'");
}

std::string cuda_backend_problem() {
  const cuda::GpuInfo& gpu = cuda::probe_gpu();
  if (!gpu.problem.empty()) return "--backend cuda: " + gpu.problem;
  // The task's reference Model runs on the GPU too (oracle/reference.h), in this process.
  oracle::ReferencePlacement placement;
  try {
    placement = oracle::reference_placement(true);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  if (!placement.on_host())
    if (const std::string e = cuda::prepare_host_process(); !e.empty()) return "--backend cuda: " + e;
  return {};
}

std::string backend_description(bool cuda) {
  if (!cuda) return "CPU backend";
  return "CUDA backend, " + cuda::probe_gpu().describe() + ", references: " +
         oracle::reference_placement(true).describe();
}

std::vector<std::string> tasks_of(const std::vector<std::string>& kernel_ids) {
  std::vector<std::string> tasks;
  for (const auto& id : kernel_ids) tasks.push_back(id.substr(0, id.find('/')));
  return tasks;
}

std::string missing_preset(const corpus::Corpus& corpus, const std::vector<std::string>& tasks,
                           const std::string& preset) {
  for (const auto& t : corpus.tasks) {
    const bool run = tasks.empty() || std::find(tasks.begin(), tasks.end(), t.name) != tasks.end();
    if (!run || t.presets.contains(preset)) continue;
    std::string names;
    for (const auto& [name, _] : t.presets) names += (names.empty() ? "" : ", ") + name;
    return "--preset " + preset + ": task '" + t.name + "' has no such preset (it has: " + names + "); add it to " +
           t.task_json.string() + " or leave the task out with --kernel";
  }
  return {};
}

std::optional<corpus::LoadResult> load_corpus_or_report(const std::filesystem::path& root) {
  corpus::LoadResult loaded = corpus::load_corpus(root);
  if (loaded.diagnostics.empty()) return loaded;
  for (const auto& d : loaded.diagnostics) std::fprintf(stderr, "%s\n", d.to_string().c_str());
  return std::nullopt;
}

}  // namespace kaudit::cli
