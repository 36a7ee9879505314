#include "reports/html.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "audit/scoring.h"
#include "mutators/mutators.h"

namespace kaudit::reports {
namespace {
using json = nlohmann::json;

std::string esc(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

// An id usable in a URL fragment: letters, digits and '-' kept, the rest '_'.
std::string anchor(const std::string& s) {
  std::string out = s;
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') c = '_';
  return out;
}

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

// Distinguishable on white, in order (the oracles, then the causes).
const char* const kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
                                "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
const char* color(std::size_t i) { return kPalette[i % (sizeof kPalette / sizeof *kPalette)]; }

// The families in table order: the six fault families, then the reward hacks.
std::vector<std::string> families() {
  std::vector<std::string> out;
  for (auto f : mutators::kAllFamilies)
    if (f != mutators::Family::RewardHack) out.emplace_back(mutators::family_name(f));
  out.emplace_back(mutators::family_name(mutators::Family::RewardHack));
  return out;
}

double missed_pct(const json& tally) {
  const double w = tally.value("witnessed", 0.0);
  return w > 0 ? 100.0 * tally.value("missed", 0.0) / w : 0.0;
}

// Grouped vertical bars: one group per label, one bar per series, values in percent (0-100).
std::string grouped_bars(const std::string& title, const std::vector<std::string>& labels,
                         const std::vector<std::string>& series, const std::vector<std::vector<double>>& values) {
  const int group_w = 24 + 14 * static_cast<int>(series.size()), left = 50, top = 30, plot_h = 220;
  const int width = std::max(left + group_w * static_cast<int>(labels.size()) + 20, left + 3 * 190);
  const int height = top + plot_h + 80 + 14 * static_cast<int>((series.size() + 2) / 3);
  std::ostringstream s;
  s << "<svg xmlns='http://www.w3.org/2000/svg' width='" << width << "' height='" << height
    << "' role='img' aria-label='" << esc(title) << "'><title>" << esc(title) << "</title>";
  s << "<text x='" << left << "' y='18' font-size='13' font-weight='bold'>" << esc(title) << "</text>";
  for (int p = 0; p <= 100; p += 25) {
    const int y = top + plot_h - plot_h * p / 100;
    s << "<line x1='" << left << "' x2='" << width - 10 << "' y1='" << y << "' y2='" << y << "' stroke='#ddd'/>"
      << "<text x='" << left - 6 << "' y='" << y + 4 << "' font-size='10' text-anchor='end'>" << p << "%</text>";
  }
  for (std::size_t g = 0; g < labels.size(); ++g) {
    const int x0 = left + static_cast<int>(g) * group_w + 12;
    for (std::size_t k = 0; k < series.size(); ++k) {
      const double v = values[k][g];
      const int h = static_cast<int>(plot_h * std::clamp(v, 0.0, 100.0) / 100.0 + 0.5);
      s << "<rect x='" << x0 + 14 * static_cast<int>(k) << "' y='" << top + plot_h - h << "' width='12' height='" << h
        << "' fill='" << color(k) << "'><title>" << esc(series[k]) << ", " << esc(labels[g]) << ": " << num(v)
        << "% missed</title></rect>";
    }
    s << "<text x='" << x0 << "' y='" << top + plot_h + 14 << "' font-size='11' transform='rotate(30 " << x0 << ","
      << top + plot_h + 14 << ")'>" << esc(labels[g]) << "</text>";
  }
  for (std::size_t k = 0; k < series.size(); ++k) {
    const int lx = left + 190 * static_cast<int>(k % 3), ly = top + plot_h + 72 + 14 * static_cast<int>(k / 3);
    s << "<rect x='" << lx << "' y='" << ly - 9 << "' width='10' height='10' fill='" << color(k) << "'/><text x='"
      << lx + 14 << "' y='" << ly << "' font-size='11'>" << esc(series[k]) << "</text>";
  }
  s << "</svg>";
  return s.str();
}

// One horizontal bar per row, split into parts (counts): kills by cause per oracle.
std::string stacked_rows(const std::string& title, const std::vector<std::string>& rows,
                         const std::vector<std::string>& parts, const std::vector<std::vector<double>>& values) {
  const int left = 170, top = 30, row_h = 22, plot_w = 520;
  const int height = top + row_h * static_cast<int>(rows.size()) + 30 + 14 * static_cast<int>((parts.size() + 3) / 4);
  double most = 1;
  for (const auto& r : values) {
    double sum = 0;
    for (double v : r) sum += v;
    most = std::max(most, sum);
  }
  std::ostringstream s;
  s << "<svg xmlns='http://www.w3.org/2000/svg' width='" << left + plot_w + 70 << "' height='" << height
    << "' role='img' aria-label='" << esc(title) << "'><title>" << esc(title) << "</title>";
  s << "<text x='10' y='18' font-size='13' font-weight='bold'>" << esc(title) << "</text>";
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const int y = top + static_cast<int>(r) * row_h;
    s << "<text x='" << left - 6 << "' y='" << y + 14 << "' font-size='11' text-anchor='end'>" << esc(rows[r]) << "</text>";
    double x = left, sum = 0;
    for (std::size_t k = 0; k < parts.size(); ++k) {
      const double w = plot_w * values[r][k] / most;
      sum += values[r][k];
      if (values[r][k] > 0)
        s << "<rect x='" << num(x) << "' y='" << y + 3 << "' width='" << num(w) << "' height='" << row_h - 6 << "' fill='"
          << color(k) << "'><title>" << esc(rows[r]) << ": " << static_cast<long>(values[r][k]) << " " << esc(parts[k])
          << "</title></rect>";
      x += w;
    }
    s << "<text x='" << num(x + 4) << "' y='" << y + 14 << "' font-size='10'>" << static_cast<long>(sum) << "</text>";
  }
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const int lx = 10 + 175 * static_cast<int>(k % 4), ly = top + row_h * static_cast<int>(rows.size()) + 18 + 14 * static_cast<int>(k / 4);
    s << "<rect x='" << lx << "' y='" << ly - 9 << "' width='10' height='10' fill='" << color(k) << "'/><text x='" << lx + 14
      << "' y='" << ly << "' font-size='11'>" << esc(parts[k]) << "</text>";
  }
  s << "</svg>";
  return s.str();
}

// Lines over categorical x labels, values in percent (NaN: no point), and horizontal reference
// lines (dashed) for values that do not depend on x.
std::string line_chart(const std::string& title, const std::string& x_title, const std::vector<std::string>& xs,
                       const std::vector<std::pair<std::string, std::vector<double>>>& series,
                       const std::vector<std::pair<std::string, double>>& hlines) {
  const int left = 50, top = 30, plot_w = 420, plot_h = 200;
  const int legend_rows = static_cast<int>(series.size() + hlines.size());
  const int width = left + plot_w + 250, height = std::max(top + plot_h + 50, top + 14 * legend_rows + 20);
  const auto x_at = [&](std::size_t i) { return left + (xs.size() > 1 ? plot_w * static_cast<int>(i) / static_cast<int>(xs.size() - 1) : plot_w / 2); };
  const auto y_at = [&](double v) { return top + plot_h - plot_h * std::clamp(v, 0.0, 100.0) / 100.0; };
  std::ostringstream s;
  s << "<svg xmlns='http://www.w3.org/2000/svg' width='" << width << "' height='" << height << "' role='img' aria-label='"
    << esc(title) << "'><title>" << esc(title) << "</title>";
  s << "<text x='" << left << "' y='18' font-size='13' font-weight='bold'>" << esc(title) << "</text>";
  for (int p = 0; p <= 100; p += 25)
    s << "<line x1='" << left << "' x2='" << left + plot_w << "' y1='" << num(y_at(p)) << "' y2='" << num(y_at(p))
      << "' stroke='#ddd'/><text x='" << left - 6 << "' y='" << num(y_at(p) + 4) << "' font-size='10' text-anchor='end'>" << p
      << "%</text>";
  for (std::size_t i = 0; i < xs.size(); ++i)
    s << "<text x='" << x_at(i) << "' y='" << top + plot_h + 16 << "' font-size='11' text-anchor='middle'>" << esc(xs[i]) << "</text>";
  s << "<text x='" << left + plot_w / 2 << "' y='" << top + plot_h + 34 << "' font-size='11' text-anchor='middle'>"
    << esc(x_title) << "</text>";
  std::size_t k = 0;
  const int lx = left + plot_w + 20;
  for (const auto& [name, values] : series) {
    std::string points;
    for (std::size_t i = 0; i < values.size() && i < xs.size(); ++i)
      if (!std::isnan(values[i])) {
        points += std::to_string(x_at(i)) + "," + num(y_at(values[i])) + " ";
        s << "<circle cx='" << x_at(i) << "' cy='" << num(y_at(values[i])) << "' r='3' fill='" << color(k) << "'><title>"
          << esc(name) << ", " << esc(xs[i]) << ": " << num(values[i]) << "%</title></circle>";
      }
    s << "<polyline points='" << points << "' fill='none' stroke='" << color(k) << "' stroke-width='2'/>";
    s << "<rect x='" << lx << "' y='" << top + 14 * static_cast<int>(k) - 9 << "' width='10' height='10' fill='" << color(k)
      << "'/><text x='" << lx + 14 << "' y='" << top + 14 * static_cast<int>(k) << "' font-size='11'>" << esc(name) << "</text>";
    ++k;
  }
  for (const auto& [name, v] : hlines) {
    s << "<line x1='" << left << "' x2='" << left + plot_w << "' y1='" << num(y_at(v)) << "' y2='" << num(y_at(v))
      << "' stroke='" << color(k) << "' stroke-dasharray='5,4'><title>" << esc(name) << ": " << num(v) << "%</title></line>";
    s << "<line x1='" << lx << "' x2='" << lx + 10 << "' y1='" << top + 14 * static_cast<int>(k) - 4 << "' y2='"
      << top + 14 * static_cast<int>(k) - 4 << "' stroke='" << color(k) << "' stroke-dasharray='3,2' stroke-width='2'/><text x='"
      << lx + 14 << "' y='" << top + 14 * static_cast<int>(k) << "' font-size='11'>" << esc(name) << " (" << num(v) << "%)</text>";
    ++k;
  }
  s << "</svg>";
  return s.str();
}

// The site's source line before and after the mutation ("" when the site is not on one line).
std::pair<std::string, std::string> site_lines(const KillRecord& k, const std::map<std::string, std::string>& sources) {
  int l1 = 0, c1 = 0, l2 = 0, c2 = 0;
  if (std::sscanf(k.range.c_str(), "%d:%d-%d:%d", &l1, &c1, &l2, &c2) != 4 || l1 != l2 || c1 < 1) return {};
  const auto src = sources.find(k.file);
  if (src == sources.end()) return {};
  std::istringstream in(src->second);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (n == l1) {
      if (static_cast<std::size_t>(c2 - 1) > line.size() || c2 < c1) return {};
      return {line, line.substr(0, c1 - 1) + k.replacement + line.substr(c2 - 1)};
    }
  return {};
}

}  // namespace

std::string html_report(const RunDir& run, const json& cover, const json& sweep) {
  const std::vector<std::string> oracles = run.oracles();
  const std::vector<std::string> fams = families();
  std::ostringstream h;
  h << "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>kaudit audit: " << esc(run.dir.filename().string())
    << "</title><style>"
       "body{font-family:sans-serif;margin:24px;max-width:1200px;color:#222}"
       "table{border-collapse:collapse;margin:8px 0 16px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}"
       "th:first-child,td:first-child{text-align:left}a{color:#1f5fa8}code,pre{font-family:monospace}"
       "pre{background:#f6f6f6;padding:6px;overflow-x:auto;margin:4px 0}.del{color:#a00}.add{color:#070}"
       "details{margin:2px 0}summary{cursor:pointer}.k{color:#a00}.m{color:#070}.small{font-size:90%;color:#555}"
       "</style></head><body>";
  h << "<h1>kaudit audit report</h1><p class='small'>Run directory <code>" << esc(run.dir.string()) << "</code>; backend "
    << esc(run.summary.value("backend", "")) << "; " << run.summary.value("audited", 0) << " mutants audited, "
    << run.summary.value("witnessed", 0)
    << " witnessed. Oracle verdicts in oracle mode (docs/ORACLES.md); a rate counts witnessed mutants only.</p>";

  // 1. The table, each number a link to its mutants.
  h << "<h2 id='table'>Missed % of witnessed mutants, per family and oracle</h2><table><tr><th>family</th><th>witnessed</th>";
  for (const auto& o : oracles) h << "<th>" << esc(o) << " (" << esc(run.oracle_summary(o).value("shape_preset", "")) << ")</th>";
  h << "</tr>";
  for (const auto& f : fams) {
    const json& first = run.oracle_summary(oracles.at(0)).at("per_family").at(f);
    h << "<tr><td>" << esc(f) << "</td><td>" << first.value("witnessed", 0) << "</td>";
    for (const auto& o : oracles) {
      const json& t = run.oracle_summary(o).at("per_family").at(f);
      h << "<td><a href='#missed-" << anchor(o) << "-" << anchor(f) << "'>"
        << audit::percent(t.value("missed", std::size_t{0}), t.value("witnessed", std::size_t{0})) << "</a></td>";
    }
    h << "</tr>";
  }
  h << "<tr><td>false kills (correct set)</td><td></td>";
  for (const auto& o : oracles) h << "<td>" << run.oracle_summary(o).value("false_kills", 0) << "</td>";
  h << "</tr></table>";

  // 2. Plots.
  h << "<h2 id='plots'>Plots</h2>";
  std::vector<std::vector<double>> missed(oracles.size(), std::vector<double>(fams.size()));
  for (std::size_t o = 0; o < oracles.size(); ++o)
    for (std::size_t f = 0; f < fams.size(); ++f) missed[o][f] = missed_pct(run.oracle_summary(oracles[o]).at("per_family").at(fams[f]));
  h << "<p>" << grouped_bars("Missed % per family (oracle mode)", fams, oracles, missed) << "</p>";
  std::set<std::string> cause_set;
  for (const auto& o : oracles) {
    const json& c = run.oracle_summary(o).at("kills_by_cause");
    if (c.contains("all faults"))
      for (auto it = c.at("all faults").begin(); it != c.at("all faults").end(); ++it) cause_set.insert(it.key());
  }
  const std::vector<std::string> causes(cause_set.begin(), cause_set.end());
  std::vector<std::vector<double>> by_cause(oracles.size(), std::vector<double>(causes.size()));
  for (std::size_t o = 0; o < oracles.size(); ++o) {
    const json& c = run.oracle_summary(oracles[o]).at("kills_by_cause");
    for (std::size_t k = 0; k < causes.size(); ++k)
      by_cause[o][k] = c.contains("all faults") ? c.at("all faults").value(causes[k], 0.0) : 0.0;
  }
  h << "<p>" << stacked_rows("Kills of witnessed fault mutants by cause (oracle mode)", oracles, causes, by_cause) << "</p>";
  std::map<std::string, double> witnesses_by_recipe;  // recipe name -> mutants it is the witness of
  for (const auto& k : run.kill_matrix)
    if (k.witnessed && k.shown_at() >= 0) witnesses_by_recipe[run.input_name(k.task, k.shown_at())] += 1;
  std::vector<std::pair<double, std::string>> top;
  for (const auto& [name, n] : witnesses_by_recipe) top.emplace_back(n, name);
  std::sort(top.rbegin(), top.rend());
  if (top.size() > 15) top.resize(15);
  std::vector<std::string> recipe_rows;
  std::vector<std::vector<double>> recipe_counts;
  for (const auto& [n, name] : top) {
    recipe_rows.push_back(name);
    recipe_counts.push_back({n});
  }
  h << "<p>" << stacked_rows("Witnesses by pool input (the first legal input on which a mutant fails; top 15)", recipe_rows,
                             {"witnessed mutants"}, recipe_counts)
    << "</p>";
  if (!cover.is_null()) {
    // Coverage of every witnessed mutant at each budget, and on the held-out half: the suites
    // chosen on the other half, next to every oracle (dashed: they have no budget).
    std::vector<std::string> budgets;
    std::vector<double> coverage, held_out;
    for (const auto& [b, c] : cover.at("coverage_at_budget").items()) {
      budgets.push_back(b);
      coverage.push_back(100.0 * c.at("coverage").get<double>());
      const json& h_b = cover.at("held_out").at("suite_at_budget");
      held_out.push_back(h_b.contains(b) ? 100.0 * h_b.at(b).at("detection").get<double>() : std::nan(""));
    }
    std::vector<std::pair<std::string, double>> oracle_lines;
    for (const auto& [o, t] : cover.at("held_out").at("oracles").items())
      oracle_lines.emplace_back(o + ", held out", 100.0 * t.at("detection").get<double>());
    h << "<p>" << line_chart("Minimal suites: mutants killed against inputs per task (kaudit cover)", "inputs per task", budgets,
                             {{"all witnessed mutants", coverage}, {"held-out half (fault families)", held_out}}, oracle_lines)
      << "</p>";
  }
  if (!sweep.is_null()) {
    std::vector<std::string> tolerances;
    std::vector<double> detection;
    std::string kills;
    for (const auto& row : sweep.at("sweep")) {
      tolerances.push_back(row.at("tolerance").is_string() ? row.at("tolerance").get<std::string>() : row.at("tolerance").dump());
      detection.push_back(100.0 * row.at("faults").at("detection").get<double>());
      kills += (kills.empty() ? "" : ", ") + tolerances.back() + ": " + std::to_string(row.at("false_kills").get<std::size_t>());
    }
    h << "<p>" << line_chart("Tolerance sweep of " + sweep.value("oracle", std::string("?")) + ": detection of witnessed faults (kaudit sweep)",
                             "tolerance", tolerances, {{"detection", detection}}, {})
      << "</p><p class='small'>False kills per tolerance: " << esc(kills) << ".</p>";
  }
  if (cover.is_null() || sweep.is_null())
    h << "<p class='small'>" << (cover.is_null() ? "Coverage against a suite's budget with its held-out line: give "
                                                   "<code>--cover cover.json</code> (<code>kaudit cover</code>). " : "")
      << (sweep.is_null() ? "The tolerance sweep: give <code>--sweep FILE</code> (<code>kaudit sweep --json</code>)." : "")
      << "</p>";

  // 3. Missed mutants per oracle and family: links into the mutant list.
  h << "<h2 id='missed'>Missed mutants, per oracle and family</h2>";
  for (const auto& o : oracles)
    for (const auto& f : fams) {
      std::vector<const KillRecord*> list;
      for (const auto& k : run.kill_matrix)
        if (k.ran && k.witnessed && k.family == f && !(k.killed_by.count(o) && k.killed_by.at(o))) list.push_back(&k);
      h << "<details id='missed-" << anchor(o) << "-" << anchor(f) << "'><summary>" << esc(o) << ", " << esc(f) << ": "
        << list.size() << " missed</summary><p>";
      for (const auto* k : list) h << "<a href='#m-" << k->id << "'>" << esc(k->kernel) << " " << esc(k->rule) << "</a> ";
      h << "</p></details>";
    }

  // 4. Every witnessed mutant.
  h << "<h2 id='mutants'>Witnessed mutants</h2>";
  for (const auto& k : run.kill_matrix) {
    if (!k.ran || !k.witnessed) continue;
    std::size_t kills = 0;
    for (const auto& o : oracles) kills += k.killed_by.count(o) && k.killed_by.at(o);
    h << "<details id='m-" << k.id << "'><summary><code>" << k.id << "</code> " << esc(k.kernel) << " &middot; "
      << esc(k.family) << " &middot; " << esc(k.rule) << " &middot; killed by " << kills << " of " << oracles.size()
      << "</summary>";
    const auto [before, after] = site_lines(k, run.sources);
    h << "<p class='small'>" << esc(k.file) << ":" << esc(k.range) << ": <code>" << esc(k.original) << "</code> &rarr; <code>"
      << esc(k.replacement) << "</code></p>";
    if (!before.empty()) h << "<pre><span class='del'>- " << esc(before) << "</span>\n<span class='add'>+ " << esc(after) << "</span></pre>";
    h << "<p>Witness: " << esc(run.witness_text(k)) << (k.oracle_witnessed ? "; also witnessed in oracle mode" : "; not witnessed in oracle mode")
      << ".</p><table><tr><th>oracle</th><th>verdict</th><th>cause</th><th>trial</th><th>witness mode</th></tr>";
    for (const auto& o : oracles) {
      const bool killed = k.killed_by.count(o) && k.killed_by.at(o);
      const bool strict = k.strict_killed_by.count(o) && k.strict_killed_by.at(o);
      h << "<tr><td>" << esc(o) << "</td><td class='" << (killed ? "m'>killed" : "k'>missed") << "</td><td>"
        << esc(killed && k.cause.count(o) ? k.cause.at(o) : "") << "</td><td>"
        << esc(killed && k.trial.count(o) ? k.trial.at(o) : "") << "</td><td>"
        << (strict ? "killed (" + esc(k.strict_cause.count(o) ? k.strict_cause.at(o) : "") + ")" : "missed") << "</td></tr>";
    }
    h << "</table>";
    if (!k.note.empty()) h << "<p class='small'>" << esc(k.note) << "</p>";
    h << "</details>";
  }
  h << "</body></html>\n";
  return h.str();
}

}  // namespace kaudit::reports
