// kaudit diff BASE HEAD: per-family detection and false-kill deltas between two checkers, the
// mutants newly missed or killed and the correct kernels newly rejected. Each side is an oracle
// spec (a built-in name or a file: audited here, on the shared pool, mostly from the cache) or a
// finished audit folder (DIR, or DIR:ORACLE when it scored several).
#include <cstdio>
#include <iostream>

#include "reports/diff.h"
#include "tools/audit_args.h"
#include "tools/cli.h"
#include "tools/cli_common.h"

namespace kaudit::cli {
namespace {

const char* kHelp =
    "usage: kaudit diff BASE HEAD [--fail-on-regression] [--min-detection FAMILY=P]... [--json] [audit options]\n\n"
    "Compares two checkers on the same mutants: per family the detection of each and the delta, the\n"
    "mutants HEAD newly misses or newly kills, and the correct-set members HEAD newly rejects.\n"
    "BASE and HEAD are each an oracle spec (a built-in name such as kernelbench-v0.1, or a spec file)\n"
    "or a `kaudit audit --out` folder (DIR, or DIR:ORACLE when the audit scored several oracles).\n"
    "Specs are audited here on the built-in pool (cached results are reused).\n\n"
    "  --fail-on-regression  exit 1 when HEAD detects less in some family or rejects more correct kernels\n"
    "  --min-detection FAMILY=P  exit 1 when HEAD detects less than P% of the witnessed mutants of FAMILY\n"
    "                   (a family name, or all: the six fault families together); repeatable\n"
    "  A checker's CI can gate a pull request on both, with no kernel run: docs/CI-GATE.md.\n"
    "  --json                print the diff as JSON\n";

struct SideArg {
  std::string text;
  bool is_dir = false;
  std::filesystem::path dir;
  std::string oracle;  // for a folder: the chosen oracle (may be empty)
};

SideArg parse_side(const std::string& text) {
  SideArg s;
  s.text = text;
  std::string path = text, oracle;
  if (!std::filesystem::is_directory(path)) {
    const auto colon = text.rfind(':');
    if (colon != std::string::npos && std::filesystem::is_directory(text.substr(0, colon))) {
      path = text.substr(0, colon);
      oracle = text.substr(colon + 1);
    }
  }
  if (std::filesystem::is_directory(path)) {
    s.is_dir = true;
    s.dir = path;
    s.oracle = oracle;
  }
  return s;
}

}  // namespace

int diff_command(const std::vector<std::string>& args) {
  bool json_out = false, fail_on_regression = false;
  std::vector<std::string> sides;
  std::vector<regress::DetectionFloor> floors;
  AuditArgs shared;
  try {
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (a == "--help" || a == "-h") { std::fputs(kHelp, stdout); std::fputs(kAuditFlagsHelp, stdout); return 0; }
      else if (a == "--json") json_out = true;
      else if (a == "--fail-on-regression") fail_on_regression = true;
      else if (a == "--min-detection") {
        if (i + 1 >= args.size()) throw std::invalid_argument("--min-detection needs FAMILY=P");
        floors.push_back(regress::parse_detection_floor(args[++i]));
      }
      else if (parse_audit_flag(args, i, shared)) continue;
      else if (!a.empty() && a[0] == '-') throw std::invalid_argument("unknown argument " + a);
      else sides.push_back(a);
    }
    if (sides.size() != 2) throw std::invalid_argument("expected BASE and HEAD");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kaudit diff: %s\n%s", e.what(), kHelp);
    return 2;
  }
  const SideArg base = parse_side(sides[0]), head = parse_side(sides[1]);
  regress::RunSide base_side, head_side;
  std::size_t kernel_runs = 0;  // 0 when both sides are finished runs
  try {
    std::vector<oracle::OracleSpec> specs;
    for (const SideArg* s : {&base, &head})
      if (!s->is_dir) specs.push_back(resolve_oracles({s->text}).at(0));
    audit::AuditResult result;
    if (!specs.empty()) {
      if (specs.size() == 2 && specs[0].name == specs[1].name && specs[0].file != specs[1].file)
        throw std::invalid_argument("BASE and HEAD are different specs with the same name '" + specs[0].name + "'; rename one");
      shared.options.oracles = specs;
      if (specs.size() == 2 && specs[0].name == specs[1].name) shared.options.oracles.pop_back();
      shared.options.pool_specs = resolve_oracles({});
      auto loaded = load_for_audit("diff", shared);
      if (!loaded) return 2;
      result = audit::run_audit(loaded->corpus, shared.options);
      kernel_runs = result.runs;
      for (const auto& p : result.problems) std::fprintf(stderr, "skipped: %s\n", p.c_str());
    }
    std::size_t next_spec = 0;
    for (auto [arg, side] : {std::pair{&base, &base_side}, std::pair{&head, &head_side}}) {
      if (arg->is_dir) *side = regress::side_from_directory(arg->dir, arg->oracle, arg->text);
      else *side = regress::side_from_result(result, specs.at(next_spec++).name, arg->text);
    }
  } catch (const oracle::SpecError& e) {
    std::fprintf(stderr, "kaudit diff: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kaudit diff: %s\n", e.what());
    return 2;
  }
  regress::DiffReport d;
  try {
    d = regress::diff_sides(base_side, head_side);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kaudit diff: %s\n", e.what());
    return 2;
  }
  const std::vector<std::string> below = regress::floors_not_met(d, floors);
  std::fprintf(stderr, "kaudit diff: %zu kernel runs%s\n", kernel_runs,
               base.is_dir && head.is_dir ? " (both sides read from finished runs)" : "");
  if (json_out) {
    nlohmann::json j = regress::to_json(d);
    j["floors_not_met"] = below;
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << regress::to_markdown(d);
    for (const auto& line : below) std::cout << "Below a floor: " << line << "\n";
  }
  return (fail_on_regression && d.regression) || !below.empty() ? 1 : 0;
}

}  // namespace kaudit::cli
