// The audit's cached results (see audit_cache.h).
#include "audit/audit_cache.h"

#include <algorithm>
#include <tuple>

#include "common/sha256.h"
#include "oracle/spec.h"

namespace kaudit::audit {
namespace fs = std::filesystem;
using nlohmann::json;

std::optional<json> cache_read(const fs::path& dir, const std::string& key) {
  const auto body = cache::read_record(dir / (key + ".json"));
  if (!body) return std::nullopt;
  json j = json::parse(*body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;  // a foreign file: recompute
  return j;
}

void cache_write(const fs::path& dir, const std::string& key, const json& j) {
  cache::write_record(dir / (key + ".json"), j.dump());
}

bool cached_false_kills(const fs::path& dir, const std::string& key, const std::string& oracle, const std::string& task,
                        std::vector<FalseKill>& fks) {
  const auto cached = cache_read(dir, key);
  const bool used = cached && decode_cached(dir, key, *cached, [&](const json& c) {
    for (const auto& f : c.at("false_kills")) fks.push_back({oracle, f.at("member"), task, f.at("trial"), f.at("detail")});
  });
  if (!used) fks.clear();
  return used;
}

json false_kills_record(std::vector<FalseKill>& fks) {
  std::sort(fks.begin(), fks.end(), [](const FalseKill& a, const FalseKill& b) {
    return std::tie(a.member, a.trial) < std::tie(b.member, b.trial);
  });
  json c = {{"false_kills", json::array()}};
  for (const auto& f : fks) c["false_kills"].push_back({{"member", f.member}, {"trial", f.trial}, {"detail", f.detail}});
  return c;
}

std::string context_digest(const std::vector<PoolInput>& pool, const std::set<std::string>& reference_keys,
                           const AuditOptions& o, const Backend& backend) {
  kaudit::Sha256 h;
  const auto field = [&](const std::string& s) { h.update(std::to_string(s.size()) + ":" + s + "\n"); };
  field(kCacheVersion);
  for (const auto& p : pool) field(p.key);
  for (const auto& k : reference_keys) field(k);
  field(json{{"kind", oracle::comparator_name(o.witness.kind)}, {"rtol", o.witness.rtol}, {"atol", o.witness.atol}}.dump());
  field(std::to_string(o.timeout_seconds));
  field(std::to_string(o.thread_budget));
  field(backend.identity());  // another backend, CPU prelude or compiler may change outcomes
  return h.hex_digest();
}

std::string cache_key(const std::string& context, const std::vector<std::string>& parts) {
  kaudit::Sha256 h;
  h.update(context);
  for (const auto& s : parts) h.update(std::to_string(s.size()) + ":" + s + "\n");
  return h.hex_digest();
}

}  // namespace kaudit::audit
