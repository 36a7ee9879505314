#include "runtime/cpu/schema.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string_view>

#include "common/parallel.h"

namespace kaudit::cpu {
namespace {

bool ends_statement(const std::string& s) {
  std::size_t e = s.find_last_not_of(" \t\r\n");
  return e != std::string::npos && (s[e] == ';' || s[e] == '}');
}

int line_of(const std::string& s, std::size_t offset) {
  return 1 + (int)std::count(s.begin(), s.begin() + (long)std::min(offset, s.size()), '\n');
}

// Groups of edits sharing one span, each group one conditional chain.
struct Group {
  std::size_t begin, end;
  std::vector<std::size_t> members;
};

// An insertion can be switched when it is a statement inserted where a statement may start:
// after `{`, `;` or `}` (a kernel's first line, between two statements). Anywhere else (inside an
// expression) it needs a build of its own. A guess that is wrong costs one compile: the compiler
// rejects the line and the edit moves to a standalone build.
bool switchable_insertion(const std::string& source, std::size_t at, const std::string& replacement) {
  if (!ends_statement(replacement)) return false;
  const std::size_t prev = at == 0 ? std::string::npos : source.find_last_not_of(" \t\r\n", at - 1);
  return prev != std::string::npos && (source[prev] == '{' || source[prev] == ';' || source[prev] == '}');
}

// Where a `//` comment starts on a line (outside string and character literals), or npos.
std::size_t comment_start(std::string_view line) {
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '"' || line[i] == '\'') {
      const char quote = line[i];
      for (++i; i < line.size() && line[i] != quote; ++i)
        if (line[i] == '\\') ++i;
    } else if (line[i] == '/' && i + 1 < line.size() && line[i + 1] == '/') {
      return i;
    }
  }
  return std::string_view::npos;
}

// The last character of code before the line that starts at `line_start`, skipping blank lines
// and `//` comments; '\0' at the start of the file.
char last_code_char_before(const std::string& source, std::size_t line_start) {
  while (line_start > 0) {
    const std::size_t newline = line_start - 1;
    const std::size_t begin = newline == 0 ? 0 : source.find_last_of('\n', newline - 1) + 1;  // npos + 1 == 0
    std::string_view line = std::string_view(source).substr(begin, newline - begin);
    line = line.substr(0, comment_start(line));
    const std::size_t last = line.find_last_not_of(" \t\r");
    if (last != std::string_view::npos) return line[last];
    line_start = begin;
  }
  return '\0';
}

// A span that is a whole expression statement (it starts its line, after `{`, `;`, `}` or `)`,
// and a `;` follows it), e.g. `__syncthreads()`, is switched in statement form with its `;`, so a
// replacement that is a statement itself (`if (s > 1) __syncthreads()`) can be switched too.
// Returns the end of the span to switch: past the `;`, or `end` unchanged. A wrong guess costs a
// compile: the braces do not compile inside an expression, and the edit moves to a standalone build.
std::size_t statement_end(const std::string& source, std::size_t begin, std::size_t end) {
  if (begin == end || ends_statement(source.substr(begin, end - begin))) return end;
  const std::size_t line_start = begin == 0 ? 0 : source.find_last_of('\n', begin - 1) + 1;
  if (source.find_first_not_of(" \t", line_start) != begin) return end;
  if (const char prev = last_code_char_before(source, line_start); prev && std::string("{;})").find(prev) == std::string::npos)
    return end;
  const std::size_t next = source.find_first_not_of(" \t\r\n", end);
  return next != std::string::npos && source[next] == ';' ? next + 1 : end;
}

// A replacement on one line, so that the lines after it keep their numbers: newlines become
// spaces and comments are dropped. Joining lines naively is unsound: a `//` comment in a
// replacement that spans lines (a barrier moved past a commented statement) would swallow the
// rest of the line, i.e. the code after it and the switch's own `} else { original }`, and the
// schema would still compile, running broken code for every mutant in it, the original included.
// Empty when the text cannot be put on one line: a preprocessor directive or a line
// continuation needs its line, a raw string literal its newlines; such an edit is built standalone.
std::optional<std::string> one_line(const std::string& t) {
  std::string out;
  bool line_start = true;  // only blanks so far on this line
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    const char next = i + 1 < t.size() ? t[i + 1] : '\0';
    if (c == '\n') {
      out += ' ';
      line_start = true;
      continue;
    }
    if (c == '#' && line_start) return std::nullopt;
    if (c == '\\' && (next == '\n' || next == '\r')) return std::nullopt;
    if (c == 'R' && next == '"' && (i == 0 || !(std::isalnum((unsigned char)t[i - 1]) || t[i - 1] == '_')))
      return std::nullopt;
    if (c != ' ' && c != '\t' && c != '\r') line_start = false;
    if (c == '/' && next == '/') {  // to the end of the line; the newline itself becomes a space
      while (i + 1 < t.size() && t[i + 1] != '\n') ++i;
      out += ' ';
      continue;
    }
    if (c == '/' && next == '*') {
      const std::size_t close = t.find("*/", i + 2);
      if (close == std::string::npos) return std::nullopt;
      i = close + 1;
      out += ' ';
      continue;
    }
    if (c == '"' || c == '\'') {  // a literal, copied as it is (escapes included)
      std::size_t j = i + 1;
      while (j < t.size() && t[j] != c && t[j] != '\n') j += t[j] == '\\' ? 2 : 1;
      if (j >= t.size() || t[j] != c) return std::nullopt;
      out.append(t, i, j + 1 - i);
      i = j;
      continue;
    }
    out += c;
  }
  return out;
}

// `alts`: (switch value, replacement already on one line).
std::string embed(const std::string& original, const std::vector<std::pair<int, std::string>>& alts,
                  bool insertion) {
  // Newlines inside the original are kept in place so later lines keep their numbers; the
  // alternatives are put on the span's first line.
  std::string out;
  if (insertion || ends_statement(original)) {
    out = "{ ";
    for (const auto& [v, r] : alts) out += "if (kaudit_active_mutant == " + std::to_string(v) + ") { " + r + " } else ";
    out += "{ " + original + " } }";
  } else {
    out = "(";
    for (const auto& [v, r] : alts) out += "(kaudit_active_mutant == " + std::to_string(v) + ") ? (" + r + ") : ";
    out += "(" + original + "))";
  }
  return out;
}

}  // namespace

std::vector<Schema> schema_sources(const std::string& source, const std::vector<SchemaEdit>& edits,
                                   const std::vector<std::size_t>& excluded) {
  std::set<std::size_t> skip(excluded.begin(), excluded.end());
  std::vector<std::size_t> pending;
  // Each edit's replacement on one line (statement-form spans switch with their ';'); an edit
  // whose replacement cannot be is in no schema, and build_schemata builds it standalone.
  std::vector<std::string> flat(edits.size());
  for (std::size_t i = 0; i < edits.size(); ++i) {
    if (skip.count(i) || edits[i].begin > edits[i].end || edits[i].end > source.size()) continue;
    const std::size_t end = statement_end(source, edits[i].begin, edits[i].end);
    auto line = one_line(edits[i].replacement + (end != edits[i].end ? ";" : ""));
    if (!line) continue;
    flat[i] = std::move(*line);
    pending.push_back(i);
  }
  std::vector<Schema> out;
  while (!pending.empty()) {
    // Group by span, then choose non-overlapping groups in order of position.
    std::map<std::pair<std::size_t, std::size_t>, std::vector<std::size_t>> by_span;
    for (std::size_t i : pending) by_span[{edits[i].begin, edits[i].end}].push_back(i);
    std::vector<Group> chosen;
    std::vector<std::size_t> next;
    std::size_t reach = 0;
    bool first = true;
    for (auto& [key, members] : by_span) {
      const std::pair<std::size_t, std::size_t> span{key.first, statement_end(source, key.first, key.second)};
      const bool insertion = span.first == span.second;
      const bool unswitchable =
          insertion && std::any_of(members.begin(), members.end(), [&](std::size_t i) {
            return !switchable_insertion(source, span.first, edits[i].replacement);
          });
      if (unswitchable) continue;  // in no schema: build_schemata builds it standalone
      if (!first && span.first < reach) {  // overlaps a chosen group: the next schema
        next.insert(next.end(), members.begin(), members.end());
        continue;
      }
      chosen.push_back({span.first, span.second, members});
      reach = span.second;
      first = false;
    }
    if (chosen.empty()) break;  // only edits that cannot be switched are left
    Schema s;
    std::string text;
    std::size_t last = 0;
    int value = (int)out.size() * 100000;  // distinct switch values across a kernel's schemata
    for (const Group& g : chosen) {
      std::vector<std::pair<int, std::string>> alts;
      for (std::size_t i : g.members) {
        alts.emplace_back(++value, flat[i]);
        s.edits.push_back(i);
        s.switch_value.push_back(value);
      }
      text += source.substr(last, g.begin - last);
      text += embed(source.substr(g.begin, g.end - g.begin), alts, g.begin == g.end);
      last = g.end;
    }
    text += source.substr(last);
    // The switch is declared before the first line, on the same line as nothing else: a #line
    // directive keeps the kernel's own line numbers.
    s.source = "extern \"C\" __attribute__((visibility(\"default\"))) int kaudit_active_mutant;\n"
               "int kaudit_active_mutant = 0;\n#line 1\n" + text;
    out.push_back(std::move(s));
    pending = std::move(next);
  }
  return out;
}

// The kernel lines to blame for a failed schema compile, most precise first. First: the line of
// the first error, or when that error is inside a prelude header, the kernel line named next (the
// note "in expansion of macro" pointing back). Only that line, because later errors are often its
// consequences (a constant made non-constant fails at every use), and moving the edits on their
// lines too would build switchable mutants standalone; a failed compile is cheap. Second: every
// kernel line the messages name (errors, and notes from macros and templates).
std::vector<std::set<int>> suspect_lines(const std::string& diagnostics, const std::regex& kernel_file) {
  std::set<int> first, all;
  bool after_first_error = false;
  std::istringstream in(diagnostics);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    const bool in_kernel = std::regex_search(line, m, kernel_file);
    if (in_kernel) all.insert(std::stoi(m[1].str()));
    const bool is_error = line.find(": error:") != std::string::npos;
    if (first.empty() && in_kernel && (is_error || after_first_error)) first.insert(std::stoi(m[1].str()));
    after_first_error = after_first_error || is_error;
  }
  return {first, all};
}

// Each failed attempt moves at least one edit out; a kernel rarely has more unswitchable lines.
constexpr int kMaxAttempts = 40;

std::string schema_body(const std::string& schema) {
  const std::string marker = "#line 1\n";
  const auto at = schema.find(marker);
  return at == std::string::npos ? schema : schema.substr(at + marker.size());
}

SchemaPlan build_schemata(const CpuCompiler& compiler, const std::string& source, const std::string& file_name,
                          const std::string& entry, const std::vector<SchemaEdit>& edits) {
  SchemaPlan plan;
  std::vector<std::size_t> excluded;
  std::set<std::size_t> in_schema;
  // The kernel file's name in the compiler's messages, as a pattern.
  std::string escaped;
  for (char ch : file_name) {
    if (std::string("\\^$.|?*+()[]{}").find(ch) != std::string::npos) escaped += '\\';
    escaped += ch;
  }
  const std::regex kernel_file("^" + escaped + R"(:(\d+):\d+:)");
  // g++'s "'x' was not declared in this scope" and "redeclaration of 'float x'" (typographic or
  // plain quotes, depending on the locale).
  const std::regex scope_error(R"((?:‘|')(?:[^‘’']*[^A-Za-z0-9_‘’'])?([A-Za-z_][A-Za-z0-9_]*)(?:’|') was not declared in this scope|redeclaration of (?:‘|')(?:[^‘’']*[^A-Za-z0-9_‘’'])?([A-Za-z_][A-Za-z0-9_]*)(?:’|'))");
  // Moves the edits a failed schema compile blames to `excluded`: true when one moved.
  const auto exclude_blamed = [&](const Schema& s) {
    bool moved = false;
    // A statement-form switch around a declaration hides the name from the code after it:
    // the error names the use, not the edit. Move the edit whose span declares that name.
    for (auto it = std::sregex_iterator(s.build.diagnostics.begin(), s.build.diagnostics.end(), scope_error);
         it != std::sregex_iterator(); ++it) {
      const std::string name = (*it)[1].matched ? (*it)[1].str() : (*it)[2].str();
      // A declaration of the name: a type word (or `>`, `*`, `&`) before it, and `[`, `=`, `;`,
      // `(`, `{` or `,` after it; a use (`buf[t] = ...`, `return v;`) is not one.
      const std::regex word("(?:^|[^A-Za-z0-9_])(?!return\\b|else\\b|case\\b|goto\\b|throw\\b)(?:[A-Za-z_][A-Za-z0-9_]*|>)[\\s*&]+" +
                            name + "\\s*[\\[=;({,]");
      for (std::size_t i : s.edits) {
        const std::string original = source.substr(edits[i].begin, edits[i].end - edits[i].begin);
        if (ends_statement(original) && std::regex_search(original, word) &&
            std::find(excluded.begin(), excluded.end(), i) == excluded.end()) {
          excluded.push_back(i);
          moved = true;
        }
      }
    }
    if (moved) return true;
    // Else every edit on the suspect lines goes (errors a declaration caused vanish with it,
    // so the line rule waits for the next attempt): the first error's line, or when no edit
    // is on it, every line the messages name.
    for (const std::set<int>& lines : suspect_lines(s.build.diagnostics, kernel_file)) {
      for (std::size_t i : s.edits) {
        const int first = line_of(source, edits[i].begin), last = line_of(source, edits[i].end);
        if (std::any_of(lines.begin(), lines.end(), [&](int l) { return l >= first && l <= last; })) {
          excluded.push_back(i);
          moved = true;
        }
      }
      if (moved) return true;
    }
    return false;
  };
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    std::vector<Schema> schemata = schema_sources(source, edits, excluded);
    // A kernel's schemata are independent sources: build them side by side. Each failed one then
    // gives up the edits it blames. The compiler caches builds by source, so on the next attempt
    // a schema whose text did not change is not rebuilt (moving edits out can regroup and
    // renumber the later schemata, which are then rebuilt).
    parallel::for_each_index(0, schemata.size(),
                             [&](std::size_t i) { schemata[i].build = compiler.build(schemata[i].source, file_name, entry); });
    bool all_ok = true;
    for (const Schema& s : schemata) {
      if (s.build.ok) continue;
      all_ok = false;
      if (!exclude_blamed(s)) excluded.insert(excluded.end(), s.edits.begin(), s.edits.end());  // give up on it
    }
    if (all_ok) {
      plan.schemata = std::move(schemata);
      break;
    }
  }
  for (const Schema& s : plan.schemata) in_schema.insert(s.edits.begin(), s.edits.end());
  for (std::size_t i = 0; i < edits.size(); ++i)
    if (!in_schema.count(i)) plan.standalone.push_back(i);
  return plan;
}

}  // namespace kaudit::cpu
