// kaudit report DIR [--format md|json|mte] [--oracle NAME]... [--out PATH]: a finished audit's
// reports, read from its run directory alone (no kernel runs, no corpus, no cache).
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "reports/html.h"
#include "reports/markdown.h"
#include "reports/mte.h"
#include "reports/run_dir.h"
#include "tools/cli.h"
#include "tools/cli_common.h"

namespace kaudit::cli {
namespace {

const char* kHelp =
    "usage: kaudit report DIR [--format md|json|mte|mte-html|html] [--oracle NAME]... [--out PATH]\n"
    "                     [--cover cover.json] [--sweep sweep.json] [--viewer FILE]\n\n"
    "Renders the reports of a finished `kaudit audit --out DIR` from the files there alone: nothing\n"
    "is run again, and a run directory copied from another machine is enough.\n"
    "  --format md      the per-family tables (report.md; the default), to stdout or --out FILE\n"
    "  --format json    summary.json, to stdout or --out FILE\n"
    "  --format mte     mutation-testing-elements JSON (schema 2, Stryker's viewer), one report per\n"
    "                   oracle (the schema has one status per mutant): --out FOLDER (default\n"
    "                   DIR/mte), one ORACLE.json each; --oracle picks some (default: every one)\n"
    "  --format mte-html  the same reports shown in Stryker's viewer, one self-contained page per\n"
    "                   oracle: --out FOLDER (default DIR/mte), ORACLE.html each; the viewer's bundle\n"
    "                   is inlined from --viewer FILE (default: what tools/setup.sh fetched,\n"
    "                   ~/.cache/kaudit-tools/mutation-test-elements-3.8.4.js)\n"
    "  --format html    one self-contained page (no network needed): the table with links to the\n"
    "                   mutants behind each number, SVG plots, every witnessed mutant with its diff,\n"
    "                   witness and verdicts; --out FILE (default DIR/report.html); with --cover (the\n"
    "                   cover.json of `kaudit cover`) and --sweep (`kaudit sweep --json`'s output), the\n"
    "                   coverage-against-budget and tolerance-sweep plots too\n"
    "Exit status: 0; 2 on a usage error or a run directory kaudit cannot read (the message names\n"
    "the file and the fix).\n";

// Where tools/setup.sh puts the viewer's bundle.
std::filesystem::path default_viewer() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  const std::filesystem::path cache = xdg && *xdg ? std::filesystem::path(xdg)
                                      : std::filesystem::path(home && *home ? home : ".") / ".cache";
  return cache / "kaudit-tools" / "mutation-test-elements-3.8.4.js";
}

void emit(const std::string& text, const std::filesystem::path& out) {
  if (out.empty()) {
    std::cout << text;
    return;
  }
  write_file_atomically(out, text);
  std::fprintf(stderr, "wrote %s\n", out.c_str());
}

}  // namespace

int report_command(const std::vector<std::string>& args) {
  std::filesystem::path dir, out, cover_file, sweep_file, viewer_file;
  std::string format = "md";
  std::vector<std::string> oracles;
  try {
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      const auto value = [&](const char* flag) { return flag_value(args, i, flag); };
      if (a == "--help" || a == "-h") {
        std::fputs(kHelp, stdout);
        return 0;
      } else if (a == "--format") {
        format = value("--format");
        if (format != "md" && format != "json" && format != "mte" && format != "mte-html" && format != "html")
          throw std::invalid_argument("--format takes md, json, mte, mte-html or html, not '" + format + "'");
      } else if (a == "--oracle") {
        oracles.push_back(value("--oracle"));
      } else if (a == "--out") {
        out = value("--out");
      } else if (a == "--cover") {
        cover_file = value("--cover");
      } else if (a == "--sweep") {
        sweep_file = value("--sweep");
      } else if (a == "--viewer") {
        viewer_file = value("--viewer");
      } else if (!a.empty() && a[0] == '-') {
        throw std::invalid_argument("unknown argument " + a);
      } else if (dir.empty()) {
        dir = a;
      } else {
        throw std::invalid_argument("one run directory, not two ('" + a + "')");
      }
    }
    if (dir.empty()) throw std::invalid_argument("the run directory is missing");
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "kaudit report: %s\n%s", e.what(), kHelp);
    return 2;
  }
  try {
    const reports::RunDir run = reports::read_run_dir(dir);
    if (format == "md") {
      emit(reports::markdown_report(run.summary, run.pools), out);
    } else if (format == "json") {
      emit(run.summary.dump(2) + "\n", out);
    } else if (format == "html") {
      const auto load = [](const std::filesystem::path& file) -> nlohmann::json {
        if (file.empty()) return nullptr;
        const auto text = read_file(file);
        if (!text) throw std::runtime_error(file.string() + ": cannot read");
        nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
        if (j.is_discarded() || !j.is_object()) throw std::runtime_error(file.string() + ": not a JSON object");
        return j;
      };
      const nlohmann::json cover = load(cover_file), sweep = load(sweep_file);
      std::string page;
      try {
        page = reports::html_report(run, cover, sweep);
      } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error((!cover_file.empty() ? cover_file.string() + " (kaudit cover's cover.json?)" : std::string()) +
                                 (!sweep_file.empty() ? " " + sweep_file.string() + " (kaudit sweep --json?)" : std::string()) +
                                 ": not the JSON expected: " + e.what());
      }
      emit(page, out.empty() ? dir / "report.html" : out);
    } else {
      if (oracles.empty()) oracles = run.oracles();
      for (const auto& o : oracles) run.oracle_summary(o);  // every name checked before anything is written
      std::string viewer;
      if (format == "mte-html") {
        if (viewer_file.empty()) viewer_file = default_viewer();
        const auto text = read_file(viewer_file);
        if (!text)
          throw std::runtime_error(viewer_file.string() + ": Stryker's viewer (mutation-testing-elements' " +
                                   "dist/mutation-test-elements.js) is missing: run tools/setup.sh, or give --viewer FILE");
        viewer = *text;
      }
      const std::filesystem::path folder = out.empty() ? dir / "mte" : out;
      std::filesystem::create_directories(folder);
      for (const auto& o : oracles) {
        const nlohmann::json report = reports::mutation_testing_report(run, o);
        if (format == "mte") emit(report.dump(1) + "\n", folder / (o + ".json"));
        else emit(reports::mutation_testing_page(report, viewer, o), folder / (o + ".html"));
      }
    }
  } catch (const std::exception& e) {  // RunDirError, a summary lacking a field, an unwritable --out
    std::fprintf(stderr, "kaudit report: %s\n", e.what());
    return 2;
  }
  std::fprintf(stderr, "kaudit report: 0 kernel runs (read from %s)\n", dir.c_str());
  return 0;
}

}  // namespace kaudit::cli
