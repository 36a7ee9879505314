// kaudit mutate [PATH] [--out DIR] [--json] [--show ID] ...: the mutation pipeline.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "corpus/corpus.h"
#include "mutators/pipeline/mutant_set.h"
#include "mutators/pipeline/pipeline.h"
#include "common/progress.h"
#include "tools/cli.h"
#include "tools/cli_common.h"

namespace kaudit::cli {
namespace {

const char* kHelp =
    "usage: kaudit mutate [PATH] [--out DIR] [--json] [--show ID] [--rule ID]... [--kernel TASK/NAME]...\n"
    "                     [--include-unverified]\n"
    "                     [--cache DIR]\n\n"
    "Applies every mutation rule at every site of every kernel of the corpus at PATH (default: the\n"
    "built-in corpus; PATH may also be a single .cu file), compiles the originals and the mutants\n"
    "with NVRTC to sm_90 CUBINs and classifies each mutant by its image:\n"
    "  stillborn   NVRTC rejected it (the first diagnostic is kept)\n"
    "  equivalent  same image as its kernel's original\n"
    "  duplicate   same image as an earlier mutant of the same kernel (duplicate_of names it)\n"
    "  distinct    anything else (these are the mutants the audit measures with)\n"
    "  unknown     no NVRTC, or the original itself did not compile\n\n"
    "Writes DIR/mutants.jsonl (one mutant per line: id, kernel, rule, family, file, begin, end, range,\n"
    "original, replacement, status, image, duplicate_of, diagnostic; byte-identical across runs and\n"
    "machines with the same NVRTC), DIR/kernels.jsonl (per kernel: id, file, SHA-256 of its text,\n"
    "its neutral variants with their sources) and DIR/mutate-summary.json, and prints the pipeline\n"
    "table. mutants.jsonl and kernels.jsonl are a mutant set: `kaudit audit --mutants DIR` audits\n"
    "it where Clang is missing (a GPU machine).\n\n"
    "  --out DIR      output folder (default: kaudit-out)\n"
    "  --json         print the summary as JSON (keys generated, stillborn, duplicate, equivalent,\n"
    "                 distinct, unknown, per_family, per_rule, kernels, parse_failures, compile_failures)\n"
    "  --show ID      print mutant ID as a unified diff (no compile) and exit\n"
    "  --rule ID      only this rule (repeatable; see `kaudit rules`)\n"
    "  --kernel ID    only this corpus kernel, TASK/NAME (repeatable)\n"
    "  --include-unverified  also mutate kernels the verification gate rejected at `kaudit import`\n"
    "  --cache DIR    NVRTC result cache (default $KAUDIT_CACHE or ~/.cache/kaudit)\n"
    "Exit status: 0; 1 when a kernel could not be parsed or its original did not compile (named on\n"
    "stderr; the others are still mutated); 2 on a usage error.\n";

// The kernels to mutate: a corpus folder (paths reported relative to its parent, so
// mutants.jsonl does not depend on where the checkout lives) or one .cu file.
std::vector<mutators::KernelSourceInfo> load_kernels(const std::filesystem::path& path,
                                                     const std::vector<std::string>& only, bool include_unverified) {
  namespace fs = std::filesystem;
  if (fs::is_regular_file(path)) {
    if (!only.empty()) throw std::invalid_argument("--kernel applies to a corpus folder, not a .cu file");
    return {mutators::read_kernel_source(path.string(), path.stem().string())};
  }
  if (!fs::is_directory(path)) {
    throw std::invalid_argument(path.string() +
                                ": no such corpus folder or .cu file (a corpus holds tasks/ and kernels/)");
  }
  const fs::path root = fs::weakly_canonical(path);
  corpus::LoadResult loaded = corpus::load_corpus(root, {.include_unverified = include_unverified});
  for (const auto& d : loaded.diagnostics) std::fprintf(stderr, "%s\n", d.to_string().c_str());
  note_unverified("mutate", loaded);
  std::vector<mutators::KernelSourceInfo> out;
  std::set<std::string> wanted(only.begin(), only.end());
  for (const auto& id : only) {
    if (!loaded.corpus.find_kernel(id)) {
      throw std::invalid_argument("no kernel '" + id + "' in " + path.string() + " (ids are TASK/NAME)");
    }
  }
  for (const auto& k : loaded.corpus.kernels) {
    if (!wanted.empty() && !wanted.count(k.id())) continue;
    out.push_back({k.id(), k.file, k.source});
  }
  return out;
}

int show_mutant(const std::vector<mutators::KernelSourceInfo>& kernels, const std::string& id,
                const mutators::SiteOptions& sites) {
  for (const auto& k : kernels) {
    const auto found = mutators::find_sites(k, sites);
    for (const auto& s : found.sites) {
      if (mutators::mutant_id(k.source, s.rule, s.begin, s.end, s.replacement) != id) continue;
      const auto* rule = mutators::find_rule(s.rule);
      std::printf("mutant %s  kernel %s  rule %s (%s)\n%s\n\n", id.c_str(), k.id.c_str(), s.rule.c_str(),
                  std::string(mutators::family_name(s.family)).c_str(), rule ? rule->description.c_str() : "");
      std::fputs(mutators::unified_diff(k.source, s).c_str(), stdout);
      return 0;
    }
  }
  std::fprintf(stderr, "kaudit mutate: no mutant %s in these kernels (ids are in mutants.jsonl)\n", id.c_str());
  return 1;
}

}  // namespace

int mutate_command(const std::vector<std::string>& args) {
  std::filesystem::path path = builtin_corpus_dir(), out_dir = "kaudit-out", cache = default_cache_dir();
  bool json_out = false, include_unverified = false;
  std::string show;
  std::vector<std::string> only;
  mutators::PipelineOptions options;
  std::vector<mutators::KernelSourceInfo> kernels;
  try {
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      const auto value = [&](const char* flag) { return flag_value(args, i, flag); };
      if (a == "--help" || a == "-h") { std::fputs(kHelp, stdout); return 0; }
      else if (a == "--json") json_out = true;
      else if (a == "--out") out_dir = value("--out");
      else if (a == "--show") show = value("--show");
      else if (a == "--cache") cache = value("--cache");
      else if (a == "--kernel") only.push_back(value("--kernel"));
      else if (a == "--include-unverified") include_unverified = true;
      else if (a == "--rule") {
        const std::string r = value("--rule");
        if (!mutators::find_rule(r)) throw std::invalid_argument("unknown rule '" + r + "' (see `kaudit rules`)");
        options.sites.rules.push_back(r);
      }
      else if (!a.empty() && a[0] == '-') throw std::invalid_argument("unknown option " + a);
      else path = a;
    }
    kernels = load_kernels(path, only, include_unverified);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kaudit mutate: %s\n%s", e.what(), kHelp);
    return 2;
  }
  if (!show.empty()) return show_mutant(kernels, show, options.sites);

  StageProgress meter(
      [](const std::string& text, bool in_place) {
        if (in_place) std::fprintf(stderr, "\r%-70s", text.c_str());  // padded over a longer line before
        else std::fprintf(stderr, "\r%-70s\n", text.c_str());
      },
      isatty(STDERR_FILENO));
  options.progress = [&](std::string_view stage, std::size_t done, std::size_t total) { meter.update(stage, done, total); };
  const mutators::NvrtcCompiler nvrtc(cache);
  if (!nvrtc.available()) {
    std::fprintf(stderr, "kaudit mutate: NVRTC is not available, every mutant is 'unknown' (%s)\n",
                 nvrtc.compile("", "x.cu").first_diagnostic.c_str());
  }
  const mutators::MutationPipeline pipeline = mutators::run_mutation_pipeline(kernels, nvrtc, options);

  const std::string jsonl = mutators::mutants_jsonl(pipeline);
  // The neutral variants, so an audit of this set needs no Clang (mutators/pipeline/mutant_set.h).
  std::map<std::string, std::vector<mutators::NeutralVariant>> neutral;
  std::map<std::string, std::string> neutral_error;
  for (const auto& k : kernels) {
    try {
      neutral[k.id] = mutators::neutral_variants(k);
    } catch (const mutators::ParseError& e) {
      neutral_error[k.id] = std::string(e.what()).substr(0, 300);
    }
  }
  nlohmann::json summary = mutators::pipeline_summary_json(pipeline);
  try {
    std::filesystem::create_directories(out_dir);
    write_file_atomically(out_dir / "mutants.jsonl", jsonl);
    write_file_atomically(out_dir / "kernels.jsonl", mutators::kernels_jsonl(kernels, neutral, neutral_error));
    write_file_atomically(out_dir / "mutate-summary.json", summary.dump(2) + "\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kaudit mutate: %s\n", e.what());
    return 1;
  }

  for (const auto& f : pipeline.parse_failures) {
    std::fprintf(stderr, "skipped %s: clang could not parse it:\n", f.kernel.c_str());
    for (const auto& d : f.diagnostics) std::fprintf(stderr, "  %s\n", d.to_string().c_str());
  }
  for (const auto& f : pipeline.compile_failures) {
    std::fprintf(stderr, "%s: the original does not compile with NVRTC, its mutants are 'unknown': %s\n",
                 f.kernel.c_str(), f.diagnostic.c_str());
  }
  if (json_out) {
    std::cout << summary.dump(2) << "\n";
  } else {
    std::printf("kaudit mutate: %zu kernels, %zu rules, NVRTC %s (sm_90)\n\n", pipeline.kernels,
                options.sites.rules.empty() ? mutators::rule_catalog().size() : options.sites.rules.size(),
                pipeline.nvrtc_version.empty() ? "unavailable" : pipeline.nvrtc_version.c_str());
    std::fputs(mutators::pipeline_table(pipeline).c_str(), stdout);
    std::printf("\nskipped: %zu kernel(s) that do not parse, %zu whose original does not compile\n",
                pipeline.parse_failures.size(), pipeline.compile_failures.size());
    std::printf("generate %.1f s, compile %.1f s (%zu of %zu compiles from the cache)\n", pipeline.generate_seconds,
                pipeline.compile_seconds, pipeline.compile_cache_hits,
                pipeline.mutants.size() + pipeline.kernels - pipeline.parse_failures.size());
    std::printf("wrote %s and %s\n", (out_dir / "mutants.jsonl").c_str(), (out_dir / "mutate-summary.json").c_str());
  }
  return pipeline.parse_failures.empty() && pipeline.compile_failures.empty() ? 0 : 1;
}

}  // namespace kaudit::cli
