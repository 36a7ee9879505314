// `kaudit report` end to end on a slice of the built-in corpus: it reads the run directory alone.
//  - md and json give report.md and summary.json as the audit wrote them;
//  - mte gives, per oracle, one status per mutant that agrees with the kill matrix (Killed or
//    Timeout for a witnessed mutant the oracle rejects, with the trial that did it; Survived for
//    one it accepts; Ignored for the rest), and validates against the published schema;
//  - a damaged run directory is an error naming the file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "common/files.h"
#include "common/process.h"

namespace {
namespace fs = std::filesystem;
using json = nlohmann::json;

// `kaudit audit` on the slice: two kernels of two tasks, five rules.
std::vector<std::string> slice_audit() {
  return {KAUDIT_EXE, "audit", "--kernel", "relu/relu_gridstride", "--kernel", "softmax/softmax_block_smem", "--rule",
          "hack-return-input", "--rule", "bound-loop-lt-to-le", "--rule", "prec-drop-max-subtraction", "--rule",
          "sync-remove-syncthreads", "--rule", "arith-add-to-sub", "--cache", KAUDIT_TEST_CACHE};
}

// The slice's run directory, audited once per test process (ctest runs this binary's tests side by
// side, each a process: each has a folder of its own; the audit cache is shared), removed at exit.
struct RunDirectory {
  fs::path path = fs::path(KAUDIT_TEST_CACHE) / ("report_e2e_run_" + std::to_string(::getpid()));
  RunDirectory() {
    kaudit::remove_tree(path);
    std::vector<std::string> args = slice_audit();
    args.insert(args.end(), {"--out", path.string()});
    const auto r = kaudit::run_process(args, 1200);
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  RunDirectory(const RunDirectory&) = delete;
  ~RunDirectory() { kaudit::remove_tree(path); }
};
const fs::path& run_dir() {
  static const RunDirectory made;
  return made.path;
}

json read_json(const fs::path& p) { return json::parse(*kaudit::read_file(p)); }

TEST(ReportCommand, MarkdownAndJsonAreTheAuditsOwnFiles) {
  const auto md = kaudit::run_process({KAUDIT_EXE, "report", run_dir().string()}, 60);
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_EQ(md.out, *kaudit::read_file(run_dir() / "report.md"));
  EXPECT_NE(md.err.find("kaudit report: 0 kernel runs (read from"), std::string::npos) << md.err;
  const auto js = kaudit::run_process({KAUDIT_EXE, "report", run_dir().string(), "--format", "json"}, 60);
  ASSERT_EQ(js.exit_code, 0) << js.err;
  EXPECT_EQ(json::parse(js.out), read_json(run_dir() / "summary.json"));
}

TEST(ReportCommand, MutationTestingElementsAgreesWithTheKillMatrix) {
  const fs::path out = run_dir() / "mte-test";
  const auto r = kaudit::run_process({KAUDIT_EXE, "report", run_dir().string(), "--format", "mte", "--out", out.string()}, 60);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, json> matrix;
  {
    std::ifstream in(run_dir() / "kill-matrix.jsonl");
    for (std::string line; std::getline(in, line);) {
      const json j = json::parse(line);
      matrix[j["id"]] = j;
    }
  }
  const json summary = read_json(run_dir() / "summary.json");
  ASSERT_FALSE(summary["oracles"].empty());
  for (const auto& o : summary["oracles"]) {
    const std::string oracle = o["oracle"];
    const json report = read_json(out / (oracle + ".json"));
    EXPECT_EQ(report["schemaVersion"], "2");
    std::set<std::string> tests;
    for (const auto& t : report["testFiles"][oracle]["tests"]) tests.insert(t["id"].get<std::string>());
    EXPECT_FALSE(tests.empty());
    std::size_t killed = 0, survived = 0, witnessed_in_summary = 0, killed_in_summary = 0;
    for (const auto& [family, tally] : o["per_family"].items()) {
      witnessed_in_summary += tally["witnessed"].get<std::size_t>();
      killed_in_summary += tally["killed"].get<std::size_t>();
    }
    for (const auto& [file, f] : report["files"].items()) {
      EXPECT_FALSE(f["source"].get<std::string>().empty()) << file;
      for (const auto& m : f["mutants"]) {
        const std::string status = m["status"];
        const auto it = matrix.find(m["id"]);
        if (status == "Killed" || status == "Timeout" || status == "Survived") {
          ASSERT_NE(it, matrix.end()) << m;
          const json& k = it->second;
          EXPECT_TRUE(k["witnessed"].get<bool>()) << m;
          EXPECT_EQ(k["killed_by"][oracle].get<bool>(), status != "Survived") << m;
          EXPECT_EQ(status == "Timeout", k["cause"].value(oracle, "") == "timeout") << m;
        }
        if (status == "Killed" || status == "Timeout") {
          ++killed;
          ASSERT_EQ(m["killedBy"].size(), 1u) << m;  // a cold audit keeps the trial of every kill
          EXPECT_TRUE(tests.count(m["killedBy"][0].get<std::string>())) << m;
        } else if (status == "Survived") {
          ++survived;
          EXPECT_NE(m["statusReason"].get<std::string>().find("witness: pool input"), std::string::npos) << m;
        } else {
          EXPECT_EQ(status, "Ignored") << m;  // every mutant of the slice compiles
          if (it != matrix.end()) {
            EXPECT_FALSE(it->second["witnessed"].get<bool>() && it->second["ran"].get<bool>()) << m;
          }
        }
      }
    }
    // The viewer's score is the oracle's detection over every witnessed mutant.
    EXPECT_EQ(killed, killed_in_summary) << oracle;
    EXPECT_EQ(killed + survived, witnessed_in_summary) << oracle;
  }
}

TEST(ReportCommand, MutationTestingElementsValidatesAgainstThePublishedSchema) {
  const fs::path schema = KAUDIT_MTE_SCHEMA;
  if (!fs::exists(schema)) GTEST_SKIP() << schema << " is missing: run tools/setup.sh (it fetches the schema from npm)";
  const auto probe = kaudit::run_process({"/usr/bin/python3", "-c", "import jsonschema"}, 60);
  if (probe.exit_code != 0) GTEST_SKIP() << "no python3-jsonschema: run tools/setup.sh";
  const fs::path out = run_dir() / "mte-schema";
  auto r = kaudit::run_process({KAUDIT_EXE, "report", run_dir().string(), "--format", "mte", "--out", out.string()}, 60);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const char* validate =
      "import json, sys, jsonschema\n"
      "schema = json.load(open(sys.argv[1]))\n"
      "for path in sys.argv[2:]:\n"
      "    jsonschema.Draft7Validator(schema).validate(json.load(open(path)))\n"
      "print(len(sys.argv) - 2, 'valid')\n";
  std::vector<std::string> args = {"/usr/bin/python3", "-c", validate, schema.string()};
  for (const auto& e : fs::directory_iterator(out)) args.push_back(e.path().string());
  ASSERT_GT(args.size(), 4u);
  r = kaudit::run_process(args, 120);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  // The check can fail: a report without its required "files" does not validate.
  json broken = read_json(args.back());
  broken.erase("files");
  kaudit::write_file_atomically(out / "broken.json", broken.dump());
  r = kaudit::run_process({"/usr/bin/python3", "-c", validate, schema.string(), (out / "broken.json").string()}, 120);
  EXPECT_NE(r.exit_code, 0);
}

TEST(ReportCommand, ADamagedRunDirectoryIsAnErrorNamingTheFile) {
  const fs::path copy = fs::path(KAUDIT_TEST_CACHE) / ("report_e2e_damaged_" + std::to_string(::getpid()));
  kaudit::remove_tree(copy);
  fs::create_directories(copy);
  for (const char* f : {"summary.json", "pools.json", "mutants.jsonl", "kill-matrix.jsonl", "report.md"})
    fs::copy_file(run_dir() / f, copy / f);
  // sources.json left out: md still renders, mte says what is missing and how to get it.
  auto r = kaudit::run_process({KAUDIT_EXE, "report", copy.string()}, 60);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = kaudit::run_process({KAUDIT_EXE, "report", copy.string(), "--format", "mte"}, 60);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("sources.json: missing"), std::string::npos) << r.err;
  r = kaudit::run_process({KAUDIT_EXE, "report", copy.string(), "--format", "mte", "--oracle", "nobody"}, 60);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no oracle 'nobody'"), std::string::npos) << r.err;
  const std::string matrix = *kaudit::read_file(copy / "kill-matrix.jsonl");
  kaudit::write_file_atomically(copy / "kill-matrix.jsonl", matrix.substr(0, matrix.size() / 2));
  r = kaudit::run_process({KAUDIT_EXE, "report", copy.string()}, 60);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("kill-matrix.jsonl"), std::string::npos) << r.err;
  kaudit::remove_tree(copy);
}

}  // namespace

namespace {

// Chromium, headless, on a local page (no network: background networking, sync and component
// updates off). Returns the process result; `extra` picks what it does (--dump-dom, --screenshot).
kaudit::ProcessResult chromium(const std::string& url, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"/usr/bin/chromium", "--headless=new", "--no-sandbox", "--disable-gpu",
                                   "--disable-background-networking", "--disable-sync", "--disable-component-update",
                                   "--no-first-run", "--enable-logging=stderr", "--v=0"};
  args.insert(args.end(), extra.begin(), extra.end());
  args.push_back(url);
  return kaudit::run_process(args, 120);
}

// Chromium's log lines for messages of the page's console (errors included).
std::vector<std::string> console_lines(const std::string& log) {
  std::vector<std::string> out;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);)
    if (line.find(":CONSOLE") != std::string::npos) out.push_back(line);
  return out;
}

TEST(ReportCommand, TheHtmlPageRendersInHeadlessChromiumWithItsPlots) {
  if (!fs::exists("/usr/bin/chromium")) GTEST_SKIP() << "no /usr/bin/chromium: run tools/setup.sh (Debian chromium)";
  const fs::path page = run_dir() / "report.html";
  fs::remove(page);
  auto r = kaudit::run_process({KAUDIT_EXE, "report", run_dir().string(), "--format", "html"}, 60);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = *kaudit::read_file(page);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));  // nothing to fetch: the only URL is SVG's namespace
  EXPECT_EQ(html.find("https://"), std::string::npos);

  const std::string url = "file://" + fs::absolute(page).string();
  r = chromium(url, {"--dump-dom"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(console_lines(r.err).empty()) << r.err;
  std::size_t svgs = 0;
  for (std::size_t p = r.out.find("<svg"); p != std::string::npos; p = r.out.find("<svg", p + 1)) ++svgs;
  EXPECT_EQ(svgs, 3u);  // per-family bars, kills by cause, witnesses by input
  EXPECT_NE(r.out.find("<rect"), std::string::npos);
  EXPECT_NE(r.out.find("id=\"missed-kernelbench-v0_1-boundary\""), std::string::npos);  // the table's links land
  const fs::path shot = run_dir() / "report.png";
  fs::remove(shot);
  r = chromium(url, {"--screenshot=" + shot.string(), "--window-size=1280,1400", "--hide-scrollbars"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(fs::exists(shot)) << r.err;
  EXPECT_GT(fs::file_size(shot), 20000u);  // a blank page of that size compresses to a few KB

  // With kaudit cover's cover.json and kaudit sweep's JSON: two more plots (here hand-made files
  // of their shape); a file of another shape is an error naming it.
  const fs::path cover = run_dir() / "cover.json", sweep = run_dir() / "sweep.json";
  kaudit::write_file_atomically(cover, R"({"coverage_at_budget": {"1": {"coverage": 0.9}, "2": {"coverage": 1.0}},
    "held_out": {"suite_at_budget": {"1": {"detection": 0.8}, "2": {"detection": 0.95}},
                 "oracles": {"kernelbench-v0.1": {"detection": 0.6}}}})");
  kaudit::write_file_atomically(sweep, R"({"oracle": "kernelbench-v0.1", "sweep": [
    {"tolerance": "1e-4", "faults": {"detection": 0.9}, "false_kills": 3},
    {"tolerance": "1e-2", "faults": {"detection": 0.7}, "false_kills": 0}]})");
  const fs::path page2 = run_dir() / "report2.html";
  r = kaudit::run_process({KAUDIT_EXE, "report", run_dir().string(), "--format", "html", "--cover", cover.string(),
                           "--sweep", sweep.string(), "--out", page2.string()},
                          60);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = chromium("file://" + fs::absolute(page2).string(), {"--dump-dom"});
  EXPECT_TRUE(console_lines(r.err).empty()) << r.err;
  svgs = 0;
  for (std::size_t p = r.out.find("<svg"); p != std::string::npos; p = r.out.find("<svg", p + 1)) ++svgs;
  EXPECT_EQ(svgs, 5u);
  EXPECT_NE(r.out.find("kernelbench-v0.1, held out (60.0%)"), std::string::npos);
  r = kaudit::run_process({KAUDIT_EXE, "report", run_dir().string(), "--format", "html", "--cover", sweep.string()}, 60);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("sweep.json (kaudit cover's cover.json?)"), std::string::npos) << r.err;

  // The console check can fail: a page whose script throws is caught by it.
  const fs::path bad = run_dir() / "bad.html";
  kaudit::write_file_atomically(bad, "<html><body><script>missingFunction();</script></body></html>");
  r = chromium("file://" + fs::absolute(bad).string(), {"--dump-dom"});
  EXPECT_FALSE(console_lines(r.err).empty()) << r.err;
}

}  // namespace

// `--format mte-html`: each oracle's report in Stryker's viewer, one self-contained page that
// renders in headless Chromium with no console message; without the viewer, an error naming the fix.
TEST(ReportCommand, TheStrykerViewerPageRendersInHeadlessChromium) {
  if (!fs::exists("/usr/bin/chromium")) GTEST_SKIP() << "no /usr/bin/chromium: run tools/setup.sh (Debian chromium)";
  if (!fs::exists(KAUDIT_MTE_VIEWER)) GTEST_SKIP() << KAUDIT_MTE_VIEWER << " is missing: run tools/setup.sh";
  const fs::path folder = run_dir() / "mte-html";
  auto r = kaudit::run_process({KAUDIT_EXE, "report", run_dir().string(), "--format", "mte-html", "--oracle",
                                "kernelbench-v0.1", "--viewer", KAUDIT_MTE_VIEWER, "--out", folder.string()},
                               60);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const fs::path page = folder / "kernelbench-v0.1.html";
  ASSERT_TRUE(fs::exists(page));
  const std::string html = *kaudit::read_file(page);
  EXPECT_NE(html.find("<mutation-test-report-app"), std::string::npos);
  EXPECT_NE(html.find("\"schemaVersion\":\"2\""), std::string::npos);
  const fs::path shot = folder / "viewer.png";
  r = chromium("file://" + fs::absolute(page).string(), {"--screenshot=" + shot.string(), "--window-size=1280,900",
                                                         "--hide-scrollbars", "--virtual-time-budget=5000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(console_lines(r.err).empty()) << r.err;
  ASSERT_TRUE(fs::exists(shot)) << r.err;
  EXPECT_GT(fs::file_size(shot), 20000u);  // the rendered table; a blank page compresses to a few KB

  r = kaudit::run_process({KAUDIT_EXE, "report", run_dir().string(), "--format", "mte-html", "--viewer",
                           (run_dir() / "no-viewer.js").string(), "--out", folder.string()},
                          60);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("run tools/setup.sh, or give --viewer FILE"), std::string::npos) << r.err;
}

// `kaudit audit --from D --oracle NEW` on a run audited with one oracle: NEW's verdicts are those
// of an audit that scores it from the start, and with a cold cache it runs fewer kernels than that
// audit (the run's rows stand in for the witness search). What would change the run is refused.
TEST(AuditFrom, OneMoreOracleOnAFinishedRunIsScoredAsAFullAuditWouldScoreIt) {
  const fs::path base = fs::path(KAUDIT_TEST_CACHE) / ("audit_from_" + std::to_string(::getpid()));
  kaudit::remove_tree(base);
  fs::create_directories(base);
  // A checker of our own: KernelBench's five trials, a looser tolerance (its trials are in the pool).
  json spec = read_json(fs::path(KAUDIT_SOURCE_DIR) / "suites" / "kernelbench.json");
  spec["name"] = "kb-loose";
  spec["comparator"]["rtol"] = spec["comparator"]["atol"] = 1e-3;
  std::ofstream(base / "kb-loose.json") << spec.dump(1);
  json stray = spec;  // ... and one whose trials are not
  stray["name"] = "kb-stray";
  stray["trials"][0]["seed"] = 987654;
  std::ofstream(base / "kb-stray.json") << stray.dump(1);
  const std::vector<std::string> slice = {"--kernel", "softmax/softmax_block_smem", "--rule", "sync-remove-syncthreads",
                                          "--rule", "bound-loop-lt-to-le", "--rule", "arith-add-to-sub"};
  const auto audit = [&](std::vector<std::string> args, const fs::path& cache) {
    args.insert(args.begin(), {KAUDIT_EXE, "audit"});
    args.insert(args.end(), {"--cache", cache.string(), "--jobs", "2"});
    return kaudit::run_process(args, 1200);
  };
  std::vector<std::string> first = slice;
  first.insert(first.end(), {"--oracle", "kernelbench-v0.1", "--out", (base / "run").string()});
  const auto r0 = audit(first, KAUDIT_TEST_CACHE);
  ASSERT_EQ(r0.exit_code, 0) << r0.err;

  const auto added = audit({"--from", (base / "run").string(), "--oracle", (base / "kb-loose.json").string(), "--out",
                            (base / "added").string()},
                           base / "cold-cache-1");
  ASSERT_EQ(added.exit_code, 0) << added.err;
  std::vector<std::string> direct_args = slice;
  direct_args.insert(direct_args.end(), {"--oracle", (base / "kb-loose.json").string(), "--out", (base / "direct").string()});
  const auto direct = audit(direct_args, base / "cold-cache-2");
  ASSERT_EQ(direct.exit_code, 0) << direct.err;

  const json added_summary = read_json(base / "added" / "summary.json");
  ASSERT_EQ(added_summary["oracles"].size(), 2u);
  EXPECT_EQ(added_summary["oracles"][0]["oracle"], "kernelbench-v0.1");
  EXPECT_EQ(added_summary["oracles"][1]["oracle"], "kb-loose");
  const json direct_summary = read_json(base / "direct" / "summary.json");
  for (const char* part : {"faults", "per_family", "kills_by_cause", "witness_mode", "false_kill_list"})
    EXPECT_EQ(added_summary["oracles"][1][part], direct_summary["oracles"][0][part]) << part;
  const std::size_t added_runs = added_summary["added_oracles"][0]["runs"];
  EXPECT_LT(added_runs, direct_summary["runs"].get<std::size_t>()) << "the run's rows should stand in for the witness search";
  // Every mutant: the run's verdicts kept, the new oracle's equal to the direct audit's.
  std::map<std::string, json> direct_rows;
  {
    std::ifstream in(base / "direct" / "kill-matrix.jsonl");
    for (std::string line; std::getline(in, line);) direct_rows[json::parse(line)["id"]] = json::parse(line);
  }
  std::ifstream in(base / "added" / "kill-matrix.jsonl");
  std::size_t rows = 0;
  for (std::string line; std::getline(in, line); ++rows) {
    const json j = json::parse(line);
    ASSERT_TRUE(direct_rows.count(j["id"])) << j["id"];
    const json& d = direct_rows[j["id"]];
    EXPECT_EQ(j["witnessed"], d["witnessed"]) << j["id"];
    const auto verdict = [](const json& row, const char* field) {  // absent for an unwitnessed mutant
      return row.value(field, json::object()).value("kb-loose", false);
    };
    EXPECT_EQ(verdict(j, "killed_by"), verdict(d, "killed_by")) << j["id"];
    EXPECT_EQ(verdict(j, "strict_killed_by"), verdict(d, "strict_killed_by")) << j["id"];
    if (j["witnessed"]) {
      EXPECT_TRUE(j["killed_by"].contains("kernelbench-v0.1")) << j["id"];
    }
  }
  EXPECT_EQ(rows, direct_rows.size());

  // Refused before any work: an oracle the run scored, a setting the run fixes, trials outside its pool.
  const auto again = audit({"--from", (base / "run").string(), "--oracle", "kernelbench-v0.1"}, KAUDIT_TEST_CACHE);
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("already scored 'kernelbench-v0.1'"), std::string::npos) << again.err;
  const auto setting = audit({"--from", (base / "run").string(), "--oracle", "kernelbench", "--timeout", "5"}, KAUDIT_TEST_CACHE);
  EXPECT_EQ(setting.exit_code, 2);
  EXPECT_NE(setting.err.find("--from takes --timeout from the run"), std::string::npos) << setting.err;
  const auto outside = audit({"--from", (base / "run").string(), "--oracle", (base / "kb-stray.json").string()}, KAUDIT_TEST_CACHE);
  EXPECT_EQ(outside.exit_code, 2);
  EXPECT_NE(outside.err.find("is not in the run's pool"), std::string::npos) << outside.err;
  kaudit::remove_tree(base);
}

// `kaudit audit --shard I/N` on N machines, then `kaudit merge`: the run directory one audit writes.
TEST(MergeCommand, TheShardsOfAnAuditMergeIntoTheRunOneAuditWrites) {
  const fs::path full = run_dir();
  const fs::path base = fs::path(KAUDIT_TEST_CACHE) / ("merge_" + std::to_string(::getpid()));
  kaudit::remove_tree(base);
  fs::create_directories(base);
  std::set<std::string> tasks;
  for (const char* shard : {"1/2", "2/2"}) {
    std::vector<std::string> args = slice_audit();
    args.insert(args.end(), {"--shard", shard, "--out", (base / ("s" + std::string(1, shard[0]))).string()});
    const auto r = kaudit::run_process(args, 1200);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json s = read_json(base / ("s" + std::string(1, shard[0])) / "summary.json");
    ASSERT_EQ(s["shard"]["tasks"].size(), 1u) << s["shard"];  // two tasks, one each
    EXPECT_EQ(s["shard"]["all_tasks"], json::array({"relu", "softmax"}));
    tasks.insert(s["shard"]["tasks"][0].get<std::string>());
  }
  EXPECT_EQ(tasks, (std::set<std::string>{"relu", "softmax"}));
  const auto merge = [&](std::vector<std::string> dirs, const fs::path& out) {
    std::vector<std::string> args = {KAUDIT_EXE, "merge"};
    for (const auto& d : dirs) args.push_back((base / d).string());
    args.insert(args.end(), {"--out", out.string()});
    return kaudit::run_process(args, 120);
  };
  const auto merged = merge({"s2", "s1"}, base / "merged");  // any order
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  for (const char* file : {"kill-matrix.jsonl", "pools.json", "mutants.jsonl", "sources.json", "report.md"})
    EXPECT_EQ(*kaudit::read_file(base / "merged" / file), *kaudit::read_file(full / file)) << file;
  json a = read_json(full / "summary.json"), b = read_json(base / "merged" / "summary.json");
  EXPECT_EQ(b["merged_shards"].size(), 2u);
  for (const char* timing : {"runs", "seconds", "stage_seconds", "workers", "merged_shards"}) {
    a.erase(timing);
    b.erase(timing);
  }
  EXPECT_EQ(a, b) << "the scores, pipeline counts and settings must be the unsharded audit's";

  // Refused, naming the directory: a shard missing, one given twice, a run that is no shard,
  // shards of other settings; and splits that cannot be made.
  const auto missing = merge({"s1"}, base / "m1");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("is missing"), std::string::npos) << missing.err;
  const auto twice = merge({"s1", "s1"}, base / "m2");
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.err.find("is given twice"), std::string::npos) << twice.err;
  fs::copy(full, base / "whole", fs::copy_options::recursive);
  const auto whole = merge({"whole", "s1"}, base / "m3");
  EXPECT_EQ(whole.exit_code, 2);
  EXPECT_NE(whole.err.find("not a shard"), std::string::npos) << whole.err;
  fs::copy(base / "s2", base / "s2-other", fs::copy_options::recursive);
  json other = read_json(base / "s2-other" / "summary.json");
  other["witness_tolerance"]["rtol"] = 0.5;
  std::ofstream(base / "s2-other" / "summary.json") << other.dump(2);
  const auto settings = merge({"s1", "s2-other"}, base / "m4");
  EXPECT_EQ(settings.exit_code, 2);
  EXPECT_NE(settings.err.find("its \"witness_tolerance\" is "), std::string::npos) << settings.err;
  json malformed = read_json(base / "s2-other" / "summary.json");
  malformed["witness_tolerance"] = read_json(base / "s2" / "summary.json")["witness_tolerance"];
  malformed["shard"] = "2/2";
  std::ofstream(base / "s2-other" / "summary.json") << malformed.dump(2);
  const auto shape = merge({"s1", "s2-other"}, base / "m5");
  EXPECT_EQ(shape.exit_code, 2);
  EXPECT_NE(shape.err.find("summary.json: its \"shard\" is not an object"), std::string::npos) << shape.err;
  // A shard of another selection (one rule fewer) is of another split, though its tasks fit.
  {
    std::vector<std::string> args = slice_audit();
    const auto rule = std::find(args.begin(), args.end(), "hack-return-input");
    args.erase(rule - 1, rule + 1);
    args.insert(args.end(), {"--shard", "2/2", "--out", (base / "s2-fewer-rules").string()});
    const auto r = kaudit::run_process(args, 1200);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const auto selection = merge({"s1", "s2-fewer-rules"}, base / "m6");
  EXPECT_EQ(selection.exit_code, 2);
  EXPECT_NE(selection.err.find("a shard of another split"), std::string::npos) << selection.err;
  EXPECT_FALSE(fs::exists(base / "m1") || fs::exists(base / "m2") || fs::exists(base / "m3") || fs::exists(base / "m4") ||
               fs::exists(base / "m5") || fs::exists(base / "m6"));
  // A shard whose task has no mutant of the selected rules (relu_gridstride has no barrier) still
  // merges, into what one audit of that selection writes.
  {
    const std::vector<std::string> sync = {KAUDIT_EXE, "audit", "--kernel", "relu/relu_gridstride", "--kernel",
                                           "softmax/softmax_block_smem", "--rule", "sync-remove-syncthreads",
                                           "--cache", KAUDIT_TEST_CACHE};
    for (const std::string shard : {"", "1/2", "2/2"}) {
      std::vector<std::string> args = sync;
      if (!shard.empty()) args.insert(args.end(), {"--shard", shard});
      args.insert(args.end(), {"--out", (base / ("sync" + (shard.empty() ? "" : "-" + shard.substr(0, 1)))).string()});
      const auto r = kaudit::run_process(args, 1200);
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    const auto merged_sync = merge({"sync-1", "sync-2"}, base / "sync-merged");
    ASSERT_EQ(merged_sync.exit_code, 0) << merged_sync.err;
    for (const char* file : {"kill-matrix.jsonl", "pools.json", "mutants.jsonl", "report.md"})
      EXPECT_EQ(*kaudit::read_file(base / "sync-merged" / file), *kaudit::read_file(base / "sync" / file)) << file;
  }
  for (const char* bad : {"3/2", "0/2", "1", "a/b"}) {
    std::vector<std::string> args = slice_audit();
    args.insert(args.end(), {"--shard", bad, "--out", (base / "bad").string()});
    const auto r = kaudit::run_process(args, 120);
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find("--shard takes I/N"), std::string::npos) << r.err;
  }
  std::vector<std::string> args = slice_audit();
  args.insert(args.end(), {"--shard", "1/3", "--out", (base / "bad").string()});
  const auto three = kaudit::run_process(args, 120);
  EXPECT_EQ(three.exit_code, 2);
  EXPECT_NE(three.err.find("at most 2 shards"), std::string::npos) << three.err;
  kaudit::remove_tree(base);
}

// `kaudit export --from D`: the run's witnesses as a suite, read from D alone. Per task, the
// exported recipes are the pool inputs the kill matrix names as witnesses, each once, in pool order.
TEST(ExportFrom, TheSuiteIsTheRunsWitnessesInPoolOrder) {
  const fs::path out = run_dir() / "export-test";
  const auto r = kaudit::run_process(
      {KAUDIT_EXE, "export", "--from", run_dir().string(), "--format", "json", "--out", out.string()}, 120);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json pools = read_json(run_dir() / "pools.json");
  std::map<std::string, std::set<int>> witnesses;
  {
    std::ifstream in(run_dir() / "kill-matrix.jsonl");
    for (std::string line; std::getline(in, line);) {
      const json j = json::parse(line);
      if (j.value("witness", -1) >= 0) witnesses[j["task"]].insert(j["witness"].get<int>());
    }
  }
  ASSERT_FALSE(witnesses.empty());
  const json exported = read_json(out / "suite-inputs.json");
  for (const auto& pool : pools) {
    const std::string task = pool["task"];
    std::vector<std::string> want;
    for (int p : witnesses[task]) want.push_back(pool["inputs"][p]["recipe"]["name"]);
    std::vector<std::string> got;
    for (const auto& c : exported["tasks"].value(task, json::array())) got.push_back(c["recipe"]["name"]);
    EXPECT_EQ(got, want) << task;
  }
  // A SUITE and --from together, or neither: a usage error.
  EXPECT_EQ(kaudit::run_process({KAUDIT_EXE, "export", "--format", "json", "--out", out.string()}, 60).exit_code, 2);
}
