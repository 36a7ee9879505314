// kaudit sweep --oracle SPEC --tolerances a,b,...: the same checker at several tolerances, scored
// on the same mutants and correct set: detection and false kills per tolerance.
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>

#include "audit/audit.h"
#include "tools/audit_args.h"
#include "tools/cli.h"
#include "tools/cli_common.h"

namespace kaudit::cli {
namespace {

const char* kHelp =
    "usage: kaudit sweep --oracle SPEC --tolerances T1,T2,... [--json] [audit options]\n\n"
    "Scores SPEC with its comparator's tolerances replaced by each T (allclose and magnitude-scaled:\n"
    "rtol = atol = T; absolute: atol = T; for outputs of every dtype, replacing any dtype_tolerance)\n"
    "on the same mutants and correct set: per tolerance the\n"
    "detection of witnessed mutants per family, and the false kills. A looser tolerance can only\n"
    "accept more, so detection and false kills never rise as T grows.\n\n"
    "  --oracle SPEC         a built-in name or a spec file\n"
    "  --tolerances LIST     comma-separated tolerances in (0, 1], e.g. 1e-2,1e-3,1e-4,1e-5\n"
    "  --json                print the sweep as JSON\n"
    "  --from DIR            on the finished run DIR (`kaudit audit --out DIR`): its kernels, mutants,\n"
    "                        settings and witnesses (its kill-matrix rows stand in for the cache, so only\n"
    "                        the checker's trials run); SPEC's trials must be in DIR's pool\n";

std::string pct(const audit::Tally& t) { return audit::percent(t.killed, t.witnessed); }

}  // namespace

int sweep_command(const std::vector<std::string>& args) {
  bool json_out = false;
  std::string oracle_name;
  std::vector<std::pair<std::string, double>> tolerances;
  AuditArgs shared;
  oracle::OracleSpec base;
  std::filesystem::path from;
  std::optional<reports::RunDir> prior_run;
  try {
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      const auto value = [&](const char* flag) { return flag_value(args, i, flag); };
      if (a == "--help" || a == "-h") { std::fputs(kHelp, stdout); std::fputs(kAuditFlagsHelp, stdout); return 0; }
      else if (a == "--json") json_out = true;
      else if (a == "--oracle") oracle_name = value("--oracle");
      else if (a == "--tolerances") {
        std::stringstream list(value("--tolerances"));
        for (std::string t; std::getline(list, t, ',');) {
          tolerances.emplace_back(t, parse_real_flag("--tolerances", t, 1e-12, 1.0));
        }
      }
      else if (a == "--from") from = value("--from");
      else if (!parse_audit_flag(args, i, shared)) throw std::invalid_argument("unknown argument " + a);
    }
    if (!from.empty()) prior_run = read_from_run(from, args, shared);
    if (oracle_name.empty()) throw std::invalid_argument("--oracle is required");
    if (tolerances.empty()) throw std::invalid_argument("--tolerances is required");
    base = resolve_oracles({oracle_name}).at(0);
  } catch (const oracle::SpecError& e) {
    std::fprintf(stderr, "kaudit sweep: %s\n", e.what());
    return 2;
  } catch (const reports::RunDirError& e) {
    std::fprintf(stderr, "kaudit sweep: --from: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kaudit sweep: %s\n%s", e.what(), kHelp);
    return 2;
  }
  for (const auto& [text, t] : tolerances) {
    oracle::OracleSpec v = base;
    v.name = base.name + "@" + text;
    v.comparator.atol = t;
    v.comparator.rtol = base.comparator.kind == oracle::ComparatorKind::Absolute ? 0 : t;
    v.comparator.dtype_tolerance.clear();  // the swept tolerance applies to every output dtype
    shared.options.oracles.push_back(v);
  }
  shared.options.pool_specs = resolve_oracles({});
  auto loaded = load_for_audit("sweep", shared);
  if (!loaded) return 2;
  std::optional<audit::AuditResult> prior;
  if (prior_run) {
    if (const std::string e = run_mismatch(*prior_run, loaded->corpus, shared.options); !e.empty()) {
      std::fprintf(stderr, "kaudit sweep: --from %s: %s\n", from.c_str(), e.c_str());
      return 2;
    }
    prior = reports::audit_result(*prior_run);
    shared.options.prior = &*prior;
  }
  const audit::AuditResult r = audit::run_audit(loaded->corpus, shared.options);

  nlohmann::json rows = nlohmann::json::array();
  std::ostringstream md;
  md << "Sweep of " << base.name << " (" << oracle::comparator_name(base.comparator.kind)
     << "), detection % of witnessed mutants per family, and false kills.\n\n| tolerance |";
  for (auto f : mutators::kAllFamilies) md << " " << mutators::family_name(f) << " |";
  md << " all faults | false kills |\n|---:|";
  for (std::size_t i = 0; i <= mutators::kAllFamilies.size() + 1; ++i) md << "---:|";
  md << "\n";
  for (std::size_t i = 0; i < r.scores.size(); ++i) {
    const auto& s = r.scores[i];
    nlohmann::json fam = nlohmann::json::object();
    md << "| " << tolerances[i].first << " |";
    for (auto f : mutators::kAllFamilies) {
      fam[std::string(mutators::family_name(f))] = audit::to_json(s.per_family.at(f));
      md << " " << pct(s.per_family.at(f)) << " |";
    }
    md << " " << pct(s.faults) << " | " << s.false_kills.size() << " |\n";
    rows.push_back({{"tolerance", tolerances[i].second}, {"oracle", s.oracle}, {"faults", audit::to_json(s.faults)},
                    {"per_family", fam}, {"false_kills", s.false_kills.size()}});
  }
  if (json_out) std::cout << nlohmann::json{{"oracle", base.name}, {"comparator", oracle::comparator_name(base.comparator.kind)},
                                            {"sweep", rows}}.dump(2) << "\n";
  else std::cout << md.str();
  for (const auto& p : r.problems) std::fprintf(stderr, "skipped: %s\n", p.c_str());
  return r.problems.empty() && loaded->diagnostics.empty() ? 0 : 1;
}

}  // namespace kaudit::cli
