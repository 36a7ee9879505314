// kaudit merge SHARD_DIR... [--out DIR] [--json]: one run directory from the N shards of an audit
// (`kaudit audit --shard I/N --out SHARD_DIR` on N machines). Runs nothing.
#include <cstdio>
#include <iostream>

#include "reports/merge.h"
#include "tools/cli.h"
#include "tools/cli_common.h"

namespace kaudit::cli {
namespace {

const char* kHelp =
    "usage: kaudit merge SHARD_DIR... [--out DIR] [--json]\n\n"
    "Joins the run directories of `kaudit audit --shard I/N` (one per shard, made on one machine or\n"
    "on several, with the same corpus, settings and oracles) into the run directory one audit of\n"
    "all the shards' tasks writes: the same kill matrix, pools, mutants, sources and report; in\n"
    "summary.json the scores are recomputed from the merged kill matrix and timings are summed (each\n"
    "shard's runs and seconds are kept under \"merged_shards\"). Shards of different splits,\n"
    "corpus files, selections, settings, mutant sets, NVRTC or GPU are refused. Nothing runs;\n"
    "`kaudit report`, `cover --from`, `audit --from` and `diff` read the result like any run directory.\n"
    "  --out DIR   the merged run directory (default kaudit-out)\n"
    "  --json      print summary.json instead of the table\n"
    "Exit status: 0; 1 when a shard skipped something (listed, as `kaudit audit` does); 2 on a usage error, or shards that do not make one split (one missing or given\n"
    "twice, other settings, oracles or corpus: the message names the directory).\n";

}  // namespace

int merge_command(const std::vector<std::string>& args) {
  std::filesystem::path out = "kaudit-out";
  bool json_out = false;
  std::vector<std::filesystem::path> dirs;
  try {
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (a == "--help" || a == "-h") { std::fputs(kHelp, stdout); return 0; }
      else if (a == "--out") out = flag_value(args, i, "--out");
      else if (a == "--json") json_out = true;
      else if (!a.empty() && a[0] == '-') throw std::invalid_argument("unknown argument " + a);
      else dirs.emplace_back(a);
    }
    if (dirs.empty()) throw std::invalid_argument("no shard directories given");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kaudit merge: %s\n%s", e.what(), kHelp);
    return 2;
  }
  reports::RunFiles files;
  try {
    std::vector<reports::RunDir> shards;
    for (const auto& d : dirs) {
      std::error_code ec;
      if (std::filesystem::equivalent(d, out, ec))
        throw reports::RunDirError("--out " + out.string() + " is one of the shards; give another folder");
      shards.push_back(reports::read_run_dir(d));
    }
    files = reports::merge_shards(shards);
    reports::write_run_dir(out, files);
  } catch (const reports::RunDirError& e) {
    std::fprintf(stderr, "kaudit merge: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kaudit merge: %s\n", e.what());
    return 2;
  }
  if (json_out) std::cout << files.summary.dump(2) << "\n";
  else std::cout << files.report_md << "\nmerged " << dirs.size() << " shards into " << out.string() << "/\n";
  const auto& problems = files.summary.at("problems");
  for (const auto& p : problems) std::fprintf(stderr, "skipped: %s\n", p.get<std::string>().c_str());
  return problems.empty() ? 0 : 1;
}

}  // namespace kaudit::cli
