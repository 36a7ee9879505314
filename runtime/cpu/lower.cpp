#include "runtime/cpu/lower.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <cctype>
#include <regex>

namespace kaudit::cpu {

std::vector<bool> code_mask(std::string_view s) {
  std::vector<bool> code(s.size(), true);
  std::size_t i = 0;
  auto mark = [&](std::size_t from, std::size_t to) {
    for (std::size_t k = from; k < to && k < s.size(); ++k) code[k] = false;
  };
  while (i < s.size()) {
    if (s.compare(i, 2, "//") == 0) {
      std::size_t e = s.find('\n', i);
      if (e == std::string_view::npos) e = s.size();
      mark(i, e);
      i = e;
    } else if (s.compare(i, 2, "/*") == 0) {
      std::size_t e = s.find("*/", i + 2);
      e = e == std::string_view::npos ? s.size() : e + 2;
      mark(i, e);
      i = e;
    } else if (s[i] == 'R' && i + 1 < s.size() && s[i + 1] == '"' && (i == 0 || !(std::isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_'))) {
      std::size_t open = s.find('(', i + 2);
      if (open == std::string_view::npos) { ++i; continue; }
      std::string close = ")" + std::string(s.substr(i + 2, open - i - 2)) + "\"";
      std::size_t e = s.find(close, open);
      e = e == std::string_view::npos ? s.size() : e + close.size();
      mark(i, e);
      i = e;
    } else if (s[i] == '"' || (s[i] == '\'' && !(i > 0 && std::isxdigit((unsigned char)s[i - 1]) && i + 1 < s.size() && std::isxdigit((unsigned char)s[i + 1])))) {
      // (a quote between hex digits is a C++14 digit separator, not a character literal)
      const char q = s[i];
      std::size_t e = i + 1;
      while (e < s.size() && s[e] != q && s[e] != '\n') e += (s[e] == '\\') ? 2 : 1;
      e = std::min(e + 1, s.size());
      mark(i, e);
      i = e;
    } else {
      ++i;
    }
  }
  return code;
}

namespace {

bool is_ident(char c) { return std::isalnum((unsigned char)c) || c == '_'; }

struct Cursor {
  std::string_view s;
  const std::vector<bool>& code;
  std::size_t skip_space_back(std::size_t i) const {  // i: one past; returns one past last non-space
    while (i > 0 && (std::isspace((unsigned char)s[i - 1]) || !code[i - 1])) --i;
    return i;
  }
  std::size_t skip_space(std::size_t i) const {
    while (i < s.size() && (std::isspace((unsigned char)s[i]) || !code[i])) ++i;
    return i;
  }
};

void line_col(std::string_view s, std::size_t pos, int& line, int& col) {
  line = 1 + (int)std::count(s.begin(), s.begin() + std::min(pos, s.size()), '\n');
  std::size_t nl = s.rfind('\n', pos == 0 ? 0 : pos - 1);
  col = (int)(nl == std::string_view::npos ? pos + 1 : pos - nl);
}

// Start of the callee expression that ends right before `end` (exclusive): an identifier with
// optional `ns::` qualifiers and template argument lists.
std::size_t callee_start(const Cursor& c, std::size_t end) {
  std::size_t i = c.skip_space_back(end);
  for (;;) {
    if (i > 0 && c.s[i - 1] == '>') {  // template argument list
      int depth = 0, parens = 0;  // `<`/`>` inside parentheses are comparisons
      std::size_t k = i;
      while (k > 0) {
        --k;
        if (!c.code[k]) continue;
        const char ch = c.s[k];
        if (ch == ')') ++parens;
        else if (ch == '(') --parens;
        else if (parens == 0 && ch == '>') ++depth;
        else if (parens == 0 && ch == '<' && --depth == 0) break;
      }
      i = c.skip_space_back(k);
    }
    std::size_t k = i;
    while (k > 0 && is_ident(c.s[k - 1])) --k;
    if (k == i) return i;  // nothing that looks like a name
    i = k;
    std::size_t before = c.skip_space_back(i);
    if (before >= 2 && c.s[before - 1] == ':' && c.s[before - 2] == ':') {
      i = c.skip_space_back(before - 2);
      continue;
    }
    return k;
  }
}

// Index of the matching closer for the opener at `open`, skipping nested brackets.
std::size_t match_paren(const Cursor& c, std::size_t open) {
  int depth = 0;
  for (std::size_t k = open; k < c.s.size(); ++k) {
    if (!c.code[k]) continue;
    char ch = c.s[k];
    if (ch == '(' || ch == '[' || ch == '{') ++depth;
    else if ((ch == ')' || ch == ']' || ch == '}') && --depth == 0) return k;
  }
  return std::string_view::npos;
}

std::size_t find_launch_close(const Cursor& c, std::size_t from) {
  int depth = 0;
  for (std::size_t k = from; k + 2 < c.s.size(); ++k) {
    if (!c.code[k]) continue;
    char ch = c.s[k];
    if (ch == '(' || ch == '[' || ch == '{') ++depth;
    else if (ch == ')' || ch == ']' || ch == '}') --depth;
    else if (depth == 0 && c.s.compare(k, 3, ">>>") == 0) return k;
  }
  return std::string_view::npos;
}

std::string trim(std::string_view v) {
  std::size_t a = 0, b = v.size();
  while (a < b && std::isspace((unsigned char)v[a])) ++a;
  while (b > a && std::isspace((unsigned char)v[b - 1])) --b;
  return std::string(v.substr(a, b - a));
}

// Keeps line numbers: appends the newlines the replaced span had beyond the replacement's.
std::string keep_lines(std::string replacement, std::string_view original) {
  auto n = std::count(original.begin(), original.end(), '\n') - std::count(replacement.begin(), replacement.end(), '\n');
  for (; n > 0; --n) replacement += '\n';
  return replacement;
}

bool in_function_scope(std::string_view s, const std::vector<bool>& code, std::size_t pos) {
  // Walk the braces before pos; a brace opened after `namespace X` or `extern "C"` is namespace scope.
  std::vector<bool> stack;  // true: namespace-like scope
  for (std::size_t k = 0; k < pos; ++k) {
    if (!code[k]) continue;
    if (s[k] == '{') {
      std::size_t b = k;
      while (b > 0 && std::isspace((unsigned char)s[b - 1])) --b;
      std::size_t line_start = s.rfind('\n', b == 0 ? 0 : b - 1);
      std::string head(s.substr(line_start == std::string_view::npos ? 0 : line_start, b - (line_start == std::string_view::npos ? 0 : line_start)));
      static const std::regex ns(R"((^|\s)(namespace(\s+[\w:]+)?|extern\s+"C(\+\+)?")\s*$)");
      stack.push_back(std::regex_search(head, ns));
    } else if (s[k] == '}' && !stack.empty()) {
      stack.pop_back();
    }
  }
  return std::any_of(stack.begin(), stack.end(), [](bool nsp) { return !nsp; });
}

// True where `s[i]` belongs to a preprocessor directive (a line starting with `#`, with its
// backslash continuations).
std::vector<bool> directive_mask(std::string_view s, const std::vector<bool>& code) {
  std::vector<bool> d(s.size(), false);
  bool in = false, line_start = true;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    if (line_start && !std::isspace((unsigned char)ch)) {
      in = ch == '#' && code[i];
      line_start = false;
    }
    d[i] = in;
    if (ch == '\n') {
      const bool continued = in && i > 0 && s[i - 1] == '\\';
      line_start = !continued;
      if (!continued) in = false;
    }
  }
  return d;
}

bool has_word(std::string_view text, std::string_view word) {
  for (std::size_t p = text.find(word); p != std::string_view::npos; p = text.find(word, p + 1)) {
    const std::size_t after = p + word.size();
    if ((p == 0 || !is_ident(text[p - 1])) && (after >= text.size() || !is_ident(text[after]))) return true;
  }
  return false;
}

// Adds to `names`, to a fixed point, the pointers, references and macros initialised or assigned
// from an expression that mentions one of them (`float* row = &tile[ty][0];`, `auto p = x + i;`),
// except those in `excluded`.
void add_aliases(const std::string& text, const std::vector<bool>& code, std::vector<std::string>& names,
                 const std::vector<std::string>& excluded = {}) {
  const auto in = [](const std::vector<std::string>& v, const std::string& n) {
    return std::find(v.begin(), v.end(), n) != v.end();
  };
  static const std::regex alias(R"((?:[*&]\s*(?:const\s+|volatile\s+|__restrict__\s+)*|\bauto\s+|#define\s+)([A-Za-z_]\w*)\s*(?:=|\()([^;\n]*))");
  for (bool grew = true; grew;) {
    grew = false;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), alias); it != std::sregex_iterator(); ++it) {
      const std::string name = (*it)[1].str(), rhs = (*it)[2].str();
      if (!code[(std::size_t)it->position(1)] && text.compare((std::size_t)it->position(0), 7, "#define") != 0) continue;
      if (in(names, name) || in(excluded, name)) continue;
      if (std::any_of(names.begin(), names.end(), [&](const std::string& n) { return has_word(rhs, n); })) {
        names.push_back(name);
        grew = true;
      }
    }
  }
}

// The names through which the TU reaches shared memory: its static `__shared__` variables, the
// dynamic buffer (`dynamic_shared_memory`, what `extern __shared__` was lowered to), a macro that
// names it, and pointers and references initialised or assigned from an expression that mentions
// one of those (to a fixed point): `float* row = &tile[ty][0];`, `volatile float* v = sdata;`.
std::vector<std::string> shared_memory_names(const std::string& text, const std::vector<bool>& code) {
  std::vector<std::string> names = {"dynamic_shared_memory"};
  const auto known = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) != names.end(); };
  // `__shared__ <type tokens> name[...]` (or `= ...`, `;`, and `, name2[...]` declarators).
  for (std::size_t p = text.find("__shared__"); p != std::string::npos; p = text.find("__shared__", p + 1)) {
    if (!code[p]) continue;
    std::string last;
    int depth = 0;
    for (std::size_t k = p + 10; k < text.size(); ++k) {
      const char ch = text[k];
      if (ch == '(' || ch == '<') ++depth;  // __align__(16), template arguments
      else if (ch == ')' || ch == '>') --depth;
      else if (depth == 0 && (ch == '[' || ch == '=' || ch == ';' || ch == ',')) {
        if (!last.empty() && !known(last)) names.push_back(last);
        last.clear();
        if (ch == '[' || ch == '=') {  // skip the extent or initializer to the declarator's end
          while (k < text.size() && text[k] != ',' && text[k] != ';') ++k;
        }
        if (k >= text.size() || text[k] == ';') break;
      } else if (depth == 0 && is_ident(ch) && (k == 0 || !is_ident(text[k - 1]))) {
        std::size_t e = k;
        while (e < text.size() && is_ident(text[e])) ++e;
        last = text.substr(k, e - k);
        k = e - 1;
      }
    }
  }
  add_aliases(text, code, names);
  return names;
}

// Pointers global memory is read through in device code: the pointer parameters of `__global__`
// and `__device__` functions and their aliases (add_aliases), less the shared memory names.
std::vector<std::string> global_pointer_names(const std::string& text, const std::vector<bool>& code,
                                              const std::vector<std::string>& shared) {
  std::vector<std::string> names;
  for (const char* keyword : {"__global__", "__device__"}) {
    for (std::size_t p = text.find(keyword); p != std::string::npos; p = text.find(keyword, p + 1)) {
      if (!code[p]) continue;
      std::size_t open = p;
      while (open < text.size() && !(code[open] && (text[open] == '(' || text[open] == ';' || text[open] == '{' ||
                                                    text[open] == '=')))
        ++open;
      if (open >= text.size() || text[open] != '(') continue;  // a variable, not a function
      int depth = 0;
      std::string param;
      for (std::size_t k = open + 1; k < text.size(); ++k) {
        const char ch = text[k];
        if (!code[k]) continue;
        if (ch == '(' || ch == '<' || ch == '[') ++depth;
        else if ((ch == ')' || ch == '>' || ch == ']') && depth > 0) --depth;
        else if ((ch == ',' || ch == ')') && depth == 0) {
          const std::string declarator = param.substr(0, param.find('='));
          if (declarator.find('*') != std::string::npos) {
            std::size_t e = declarator.size();
            while (e > 0 && !is_ident(declarator[e - 1])) --e;
            std::size_t b = e;
            while (b > 0 && is_ident(declarator[b - 1])) --b;
            const std::string name = declarator.substr(b, e - b);
            if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end() &&
                std::find(shared.begin(), shared.end(), name) == shared.end())
              names.push_back(name);
          }
          param.clear();
          if (ch == ')') break;
          continue;
        }
        param += ch;
      }
    }
  }
  add_aliases(text, code, names, shared);
  return names;
}

// Whether a callee is a CUDA math or conversion function, which takes values and writes through
// none of its arguments (`fmaf(As[ty][k], Bs[k][tx], acc)` only reads shared memory).
bool writes_no_argument(std::string_view callee) {
  static const char* const kPure[] = {
      "fmaf", "fmaxf", "fminf", "fabsf", "expf", "exp2f", "expm1f", "logf", "log2f", "log1pf", "sqrtf", "rsqrtf",
      "tanhf", "erff", "erfcf", "powf", "sinf", "cosf", "floorf", "ceilf", "roundf", "truncf", "copysignf",
      "fma", "fmax", "fmin", "fabs", "exp", "log", "sqrt", "tanh", "erf", "pow", "max", "min", "abs",
      "__expf", "__logf", "__powf", "__fdividef", "__saturatef", "__frcp_rn", "__fsqrt_rn", "__ldg"};
  static const char* const kPurePrefixes[] = {"__f", "__d", "__h", "__float", "__half", "__int_as", "__uint_as",
                                              "__bfloat", "make_"};
  for (const char* p : kPure)
    if (callee == p) return true;
  for (const char* p : kPurePrefixes)
    if (callee.substr(0, std::strlen(p)) == p) return true;
  return false;
}

// Whether a shared name occurs inside the arguments of a call in `t` (`f(s)`, `atomicAdd(&s[0],
// v)`: the callee may write through it).
bool shared_in_call(std::string_view t, const std::vector<std::string>& shared) {
  std::vector<bool> calls;  // per open parenthesis: whether it opens a call's arguments
  for (std::size_t k = 0; k < t.size(); ++k) {
    const char ch = t[k];
    if (ch == '(') {
      std::size_t b = k;
      while (b > 0 && std::isspace((unsigned char)t[b - 1])) --b;
      std::size_t c = b;
      while (c > 0 && is_ident(t[c - 1])) --c;
      calls.push_back(b > 0 && is_ident(t[b - 1]) && !writes_no_argument(t.substr(c, b - c)));
    } else if (ch == ')') {
      if (!calls.empty()) calls.pop_back();
    } else if (is_ident(ch) && (k == 0 || !is_ident(t[k - 1]))) {
      std::size_t e = k;
      while (e < t.size() && is_ident(t[e])) ++e;
      const std::string_view word = t.substr(k, e - k);
      if (std::find(calls.begin(), calls.end(), true) != calls.end() &&
          std::find(shared.begin(), shared.end(), word) != shared.end())
        return true;
      k = e - 1;
    }
  }
  return false;
}

// Barriers and warp collectives, as prefixes (`__shfl` matches `__shfl_down_sync`).
// (cooperative_groups: its groups' sync, shuffles and votes are these intrinsics,
// stubs/cooperative_groups.h.)
const char* const kSyncOps[] = {"__syncthreads", "__syncwarp",  "__shfl",    "__ballot_sync",     "__any_sync",
                                "__all_sync",    "__activemask", "__reduce_", "__match_", "cooperative_groups"};

// Whether `text` holds `prefix` at the start of an identifier.
bool has_prefix_word(std::string_view text, std::string_view prefix) {
  for (std::size_t p = text.find(prefix); p != std::string_view::npos; p = text.find(prefix, p + 1))
    if (p == 0 || !is_ident(text[p - 1])) return true;
  return false;
}

bool names_any(std::string_view statement, const std::vector<std::string>& names) {
  return std::any_of(names.begin(), names.end(), [&](const std::string& n) { return has_word(statement, n); });
}

// Where a statement's first top-level assignment `=` is (plain or compound: `+=`, `<<=`; not a
// comparison `==`, `!=`, `<=`, `>=`), or npos when it has none.
std::size_t top_level_assignment(std::string_view statement) {
  int depth = 0;
  for (std::size_t k = 0; k < statement.size(); ++k) {
    const char ch = statement[k];
    if (ch == '(' || ch == '[' || ch == '{') ++depth;
    else if (ch == ')' || ch == ']' || ch == '}') --depth;
    else if (ch == '=' && depth == 0) {
      const char prev = k > 0 ? statement[k - 1] : ' ', next = k + 1 < statement.size() ? statement[k + 1] : ' ';
      if (next == '=' || prev == '=' || prev == '!' || ((prev == '<' || prev == '>') && !(k > 1 && statement[k - 2] == prev)))
        continue;  // a comparison, not an assignment (`<<=` and `>>=` are assignments)
      return k;
    }
  }
  return std::string::npos;
}

// Whether a statement (its code text) may write shared memory: it names shared memory
// (shared_memory_names) and assigns to it (a shared name left of its first top-level `=`,
// `+=`, ...), or passes it to a call (which may write through it: atomicAdd(&s[0], v)), or has no
// top-level assignment at all (an increment, a declaration). `float v = s[i];` and
// `acc += a[k] * b[k];` only read.
bool writes_shared_memory(const std::string& statement, const std::vector<std::string>& shared) {
  const auto names_shared = [&](std::string_view t) {
    return std::any_of(shared.begin(), shared.end(), [&](const std::string& n) { return has_word(t, n); });
  };
  if (!names_shared(statement)) return false;
  if (shared_in_call(statement, shared)) return true;
  const std::size_t eq = top_level_assignment(statement);
  return eq == std::string::npos || names_shared(std::string_view(statement).substr(0, eq));
}

// Whether a statement (its code text) may load from global memory: a global pointer
// (global_pointer_names) is indexed (`x[i]`, `reinterpret_cast<const float4*>(x)[i]`,
// `(x + i)[0]`) or dereferenced (`*x`, `*(x + i)`) anywhere but as the target of a plain `=`
// (`y[i] = v;` stores; `y[i] += v;` loads first).
bool reads_global_memory(const std::string& statement, const std::vector<std::string>& globals) {
  // Where the loads can be: after a plain assignment's `=`, else the whole statement.
  const std::size_t eq = top_level_assignment(statement);
  const bool plain = eq != std::string::npos && (eq == 0 || std::string_view("+-*/%&|^<>").find(statement[eq - 1]) ==
                                                                std::string_view::npos);
  const std::size_t from = plain ? eq + 1 : 0;
  const std::string_view t = std::string_view(statement).substr(from);
  const auto next_char = [&](std::size_t k) {
    while (k < t.size() && std::isspace((unsigned char)t[k])) ++k;
    return k < t.size() ? t[k] : '\0';
  };
  const auto prev_char = [&](std::size_t k, std::size_t& at) {
    while (k > 0 && std::isspace((unsigned char)t[k - 1])) --k;
    at = k > 0 ? k - 1 : 0;
    return k > 0 ? t[k - 1] : '\0';
  };
  for (std::size_t k = 0; k < t.size(); ++k) {
    if (!is_ident(t[k]) || (k > 0 && is_ident(t[k - 1]))) continue;
    std::size_t e = k;
    while (e < t.size() && is_ident(t[e])) ++e;
    const std::string word(t.substr(k, e - k));
    if (std::find(globals.begin(), globals.end(), word) != globals.end()) {
      if (next_char(e) == '[') return true;
      std::size_t at = 0;
      const char before = prev_char(k, at);
      char before_star = '\0';
      if (before == '*') {  // unary unless an operand precedes it
        std::size_t at2 = 0;
        before_star = prev_char(at, at2);
        if (!(is_ident(before_star) || before_star == ')' || before_star == ']')) return true;
      }
      // Inside parentheses that are indexed or dereferenced: `(x + i)[0]`, `cast<T*>(x)[i]`, `*(x + i)`.
      int d = 0;
      for (std::size_t q = e; q < t.size(); ++q) {
        if (t[q] == '(') ++d;
        else if (t[q] == ')' && d-- == 0) {
          if (next_char(q + 1) == '[') return true;
          break;
        }
      }
      d = 0;
      for (std::size_t q = k; q-- > 0;) {
        if (t[q] == ')') ++d;
        else if (t[q] == '(' && d-- == 0) {
          std::size_t at3 = 0;
          const char open_before = prev_char(q, at3);
          if (open_before == '*') {
            std::size_t at4 = 0;
            const char c = prev_char(at3, at4);
            if (!(is_ident(c) || c == ')' || c == ']')) return true;
          }
          break;
        }
      }
    }
    k = e - 1;
  }
  return false;
}

// Oracle mode's step points (runtime/cpu/emulator.h, Mode), in the body of a `__global__` or
// `__device__` function (not constexpr ones), on the same line: `KAUDIT_STEP(0);` before every
// statement that reads or may write shared memory (writes_shared_memory) and after every write;
// `KAUDIT_STEP(1);` before every statement that loads from global memory (reads_global_memory),
// which also serves as the step before its write. A warp's turn before a statement is the time
// it takes to get there; the scheduler's clocks decide who goes first. One step between two
// consecutive shared-memory statements. Register arithmetic and global stores run on without a
// turn. Not inside parentheses (a `for` header), struct bodies or initializers; not after a
// statement an `else` or a do-loop's `while` must follow, nor before one that is an `else` branch
// (an unbraced loop body gets its step before the loop).
void insert_step_points(std::string& text) {
  const std::vector<bool> code = code_mask(text);
  const std::vector<bool> directive = directive_mask(text, code);
  const auto live = [&](std::size_t i) { return code[i] && !directive[i]; };
  const std::vector<std::string> shared = shared_memory_names(text, code);
  const std::vector<std::string> globals = global_pointer_names(text, code, shared);
  enum class Scope { Namespace, Device, Other };
  struct Level {
    Scope scope;
    int saved_paren;
    std::size_t saved_head = 0;  // an initializer's braces are part of its statement
    bool initializer = false;
  };
  std::vector<Level> stack;
  std::vector<std::size_t> after, before, before_load;  // insertion points
  std::size_t head_start = 0;
  int paren = 0;
  // The body of a short `if` (below) takes its turns around the `if`; none inside it.
  std::size_t quiet_until = 0;
  const auto head = [&](std::size_t end) {
    std::string h;
    for (std::size_t k = head_start; k < end; ++k)
      if (live(k)) h += text[k];
    return h;
  };
  const auto next_word = [&](std::size_t from) {
    std::size_t k = from;
    while (k < text.size() && (!live(k) || std::isspace((unsigned char)text[k]))) ++k;
    std::size_t e = k;
    while (e < text.size() && is_ident(text[e])) ++e;
    return text.substr(k, e - k);
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!live(i)) continue;
    const char ch = text[i];
    const Scope top = stack.empty() ? Scope::Namespace : stack.back().scope;
    if (ch == '(' || ch == '[') {
      ++paren;
    } else if (ch == ')' || ch == ']') {
      --paren;
    } else if (ch == '{') {
      const std::string h = head(i);
      std::string trimmed = trim(h);
      Scope scope = Scope::Other;
      if (top == Scope::Namespace) {
        const std::size_t open = h.find('(');
        const bool function = open != std::string::npos && h.substr(0, open).find('=') == std::string::npos;
        if (!function && (has_word(h, "namespace") || has_word(h, "extern")))
          scope = Scope::Namespace;
        else if (function && (has_word(h, "__global__") || has_word(h, "__device__")) && !has_word(h, "constexpr"))
          scope = Scope::Device;
      } else if (top == Scope::Device) {
        const bool initializer = !trimmed.empty() && (trimmed.back() == '=' || trimmed.back() == ',' ||
                                                      trimmed.back() == '(' || has_word(trimmed, "return"));
        const bool type_body = has_word(h, "struct") || has_word(h, "class") || has_word(h, "union") || has_word(h, "enum");
        if (!initializer && !type_body && paren == 0) scope = Scope::Device;
      }
      const bool initializer = top == Scope::Device && scope == Scope::Other &&
                               !(has_word(h, "struct") || has_word(h, "class") || has_word(h, "union") || has_word(h, "enum"));
      stack.push_back({scope, paren, head_start, initializer});
      // A short `if` body (straight-line code: no loop, jump, barrier or warp collective, no load
      // from global memory, no statement that reads what an earlier one of the body wrote to
      // shared memory) that touches shared memory takes its turns as an unbraced one-statement
      // body does: one before the `if`, one after the body when it writes, none inside (and none
      // where an `else` must follow). A warp whose condition is false then spends the same time
      // as one that runs the body, as on a GPU, where the compiler predicates such a body rather
      // than branching round it: softmax_block_smem's and argmax_block_smem's trees without their
      // in-loop barrier (a braced body, and in a schema a switch inside it) pass on the H200 in
      // every repetition, where idle warps running ahead read the root early. A longer body is
      // branched round: cumsum_warp_scan's idle warps read the warp totals before the first
      // warp's scan (shuffles in a loop) has written them, as on the H200 (docs/ORACLES.md, "Races").
      // (The `{` must be the one right after the condition's `)`: in `if (c) p = Pair{s[0], 1};`
      // or `if (c) [&] { ... }();` it opens a value or a lambda, not the body.)
      if (top == Scope::Device && scope == Scope::Device && i >= quiet_until && next_word(head_start) == "if" &&
          !trimmed.empty() && trimmed.back() == ')') {
        std::size_t close = i + 1;
        for (int depth = 1; close < text.size(); ++close) {
          if (!live(close)) continue;
          if (text[close] == '{') ++depth;
          else if (text[close] == '}' && --depth == 0) break;
        }
        std::string body;
        for (std::size_t k = i + 1; k < close && k < text.size(); ++k)
          if (live(k)) body += text[k];
        std::vector<std::string> statements;
        for (std::size_t from = 0, semi; from < body.size(); from = semi + 1) {
          semi = body.find(';', from);
          if (semi == std::string::npos) semi = body.size();
          statements.push_back(body.substr(from, semi - from));
        }
        // Statements that run lane by lane with no step point between them must not depend on
        // each other through shared memory (`v[t] += v[t + 16]; v[t] += v[t + 8];` would see the
        // later lanes' first statement undone): none may name what an earlier one wrote, an
        // `else` branch (a schema's switch) counting as an alternative, not as a successor.
        bool independent = true;
        std::vector<std::string> written;
        for (const std::string& st : statements) {
          std::size_t k = 0;
          while (k < st.size() && (std::isspace((unsigned char)st[k]) || st[k] == '{' || st[k] == '}')) ++k;
          const bool alternative = st.compare(k, 4, "else") == 0 && (k + 4 >= st.size() || !is_ident(st[k + 4]));
          for (const std::string& n : shared) {
            if (!has_word(st, n)) continue;
            if (!alternative && std::find(written.begin(), written.end(), n) != written.end()) independent = false;
          }
          if (writes_shared_memory(st, shared))
            for (const std::string& n : shared)
              if (has_word(st, n)) written.push_back(n);
        }
        const bool straight = independent && !has_word(body, "for") && !has_word(body, "while") &&
                              !has_word(body, "do") && !has_word(body, "return") && !has_word(body, "goto") &&
                              !has_word(body, "break") && !has_word(body, "continue") &&
                              std::none_of(std::begin(kSyncOps), std::end(kSyncOps),
                                           [&](const char* op) { return has_prefix_word(body, op); }) &&
                              std::none_of(statements.begin(), statements.end(),
                                           [&](const std::string& st) { return reads_global_memory(st, globals); });
        if (close < text.size() && straight && names_any(body, shared) && next_word(close + 1) != "else") {
          std::size_t start = head_start;
          while (start < i && (!live(start) || std::isspace((unsigned char)text[start]))) ++start;
          if (after.empty() || after.back() != head_start) before.push_back(start);
          if (std::any_of(statements.begin(), statements.end(),
                          [&](const std::string& st) { return writes_shared_memory(st, shared); }))
            after.push_back(close + 1);
          quiet_until = close;
        }
      }
      paren = 0;
      head_start = i + 1;
    } else if (ch == '}') {
      bool initializer = false;
      std::size_t saved_head = i + 1;
      if (!stack.empty()) {
        paren = stack.back().saved_paren;
        initializer = stack.back().initializer;
        saved_head = stack.back().saved_head;
        stack.pop_back();
      }
      head_start = initializer ? saved_head : i + 1;
    } else if (ch == ';' && paren == 0) {
      const std::string w = next_word(i + 1);
      if (top == Scope::Device && w != "else" && w != "while" && i >= quiet_until) {
        const std::string statement = head(i);
        std::size_t start = head_start;
        while (start < i && (!live(start) || std::isspace((unsigned char)text[start]))) ++start;
        const bool may_start = next_word(start) != "else";
        // A load from global memory waits for it first (its step point serves as a write's).
        const bool load = may_start && reads_global_memory(statement, globals);
        if (load) before_load.push_back(start);
        // A declaration of shared memory does nothing at run time: no turn.
        if (!has_word(statement, "__shared__") && writes_shared_memory(statement, shared)) {
          // Before it, where a statement may start (not an else branch), unless the statement
          // before was such a write too (its step point is right there).
          if (may_start && !load && (after.empty() || after.back() != head_start)) before.push_back(start);
          after.push_back(i + 1);
        } else if (!has_word(statement, "__shared__") && names_any(statement, shared)) {
          // A read of shared memory: a turn before it (the time to get there).
          if (may_start && !load && (after.empty() || after.back() != head_start)) before.push_back(start);
        }
      }
      head_start = i + 1;
    }
  }
  std::vector<std::pair<std::size_t, const char*>> inserts;
  for (std::size_t p : after) inserts.emplace_back(p, " KAUDIT_STEP(0);");
  for (std::size_t p : before) inserts.emplace_back(p, "KAUDIT_STEP(0); ");
  for (std::size_t p : before_load) inserts.emplace_back(p, "KAUDIT_STEP(1); ");
  std::stable_sort(inserts.begin(), inserts.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [p, what] : inserts) text.insert(p, what);
}

}  // namespace

LoweredSource lower_for_cpu(std::string_view source, std::string_view file_name, std::string_view entry) {
  LoweredSource out;
  std::string text(source);

  // 1. extern __shared__ declarations -> pointers to the block's dynamic shared memory.
  {
    static const std::regex decl(
        R"(extern\s+(?:volatile\s+)?__shared__\s+((?:(?:__align__|alignas)\s*\(\s*\d+\s*\)\s*)*)((?:const\s+|volatile\s+|unsigned\s+|signed\s+)*[A-Za-z_][\w:]*(?:\s*<[^;\[\]]*>)?)\s+([A-Za-z_]\w*)\s*\[\s*\]\s*;)");
    std::vector<bool> code = code_mask(text);
    std::string result;
    std::size_t last = 0;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), decl); it != std::sregex_iterator(); ++it) {
      const std::size_t pos = (std::size_t)it->position(0);
      if (!code[pos]) continue;
      const std::string type = (*it)[2].str(), name = (*it)[3].str();
      std::string repl;
      if (in_function_scope(text, code, pos)) {
        repl = type + "* const " + name + " = reinterpret_cast<" + type + "*>(::kaudit::dynamic_shared_memory());";
      } else {
        // Namespace scope: a name that re-reads the current block's buffer at each use.
        repl = "#define " + name + " (reinterpret_cast<" + type + "*>(::kaudit::dynamic_shared_memory()))";
        if (pos > 0 && text[pos - 1] != '\n') repl = "\n" + repl;  // a directive must start a line
      }
      result += text.substr(last, pos - last);
      result += keep_lines(repl, it->str());
      last = pos + (std::size_t)it->length(0);
      out.uses_dynamic_smem = true;
    }
    result += text.substr(last);
    text = std::move(result);
  }
  // 2. `static __shared__` -> `__shared__`.
  {
    static const std::regex st(R"(\bstatic(\s+(?:volatile\s+)?__shared__)\b)");
    text = std::regex_replace(text, st, "$1");
  }
  // 3. What the TU uses: barriers or warp collectives (fibers), and static shared memory (any
  // `__shared__` left in code is a static one; a macro spelling it counts too).
  {
    const std::vector<bool> code = code_mask(text);
    // Whether code (not a comment or literal) holds `word` after a non-identifier character, and
    // before one when `whole` (the sync ops are prefixes: `__shfl` matches `__shfl_down_sync`).
    const auto in_code = [&](std::string_view word, bool whole) {
      for (std::size_t p = text.find(word); p != std::string::npos; p = text.find(word, p + 1)) {
        const std::size_t after = p + word.size();
        if (code[p] && (p == 0 || !is_ident(text[p - 1])) && (!whole || after >= text.size() || !is_ident(text[after])))
          return true;
      }
      return false;
    };
    out.uses_static_smem = in_code("__shared__", true);
    // Shared memory alone needs fibers too: in oracle mode its users' warps are interleaved at
    // step points (a mutant that removed a kernel's only barrier still shares data through it).
    out.needs_fibers = out.uses_static_smem || out.uses_dynamic_smem ||
                       std::any_of(std::begin(kSyncOps), std::end(kSyncOps), [&](const char* op) { return in_code(op, false); });
  }
  if (out.needs_fibers) insert_step_points(text);
  // 4. Kernel launches.
  {
    for (;;) {
      std::vector<bool> code = code_mask(text);
      Cursor c{text, code};
      std::size_t lt = std::string::npos;
      for (std::size_t p = text.find("<<<"); p != std::string::npos; p = text.find("<<<", p + 3))
        if (code[p]) { lt = p; break; }
      if (lt == std::string::npos) break;
      int line = 0, col = 0;
      line_col(text, lt, line, col);
      const std::size_t gt = find_launch_close(c, lt + 3);
      const std::size_t start = callee_start(c, lt);
      const std::size_t open = gt == std::string::npos ? gt : c.skip_space(gt + 3);
      if (gt == std::string::npos || start == lt || open >= text.size() || text[open] != '(') {
        out.errors.push_back({line, col, "cannot parse this kernel launch (expected `name<<<grid, block[, smem[, stream]]>>>(args)`)"});
        text.replace(lt, 3, "< < <");  // leave it for the compiler to reject, and move on
        continue;
      }
      const std::size_t close = match_paren(c, open);
      if (close == std::string::npos) {
        out.errors.push_back({line, col, "unbalanced parentheses in the arguments of this kernel launch"});
        text.replace(lt, 3, "< < <");
        continue;
      }
      const std::string callee = trim(std::string_view(text).substr(start, lt - start));
      const std::string cfg(std::string_view(text).substr(lt + 3, gt - lt - 3));
      const std::string args(std::string_view(text).substr(open + 1, close - open - 1));
      std::string quoted;
      for (char ch : callee) if (ch != '"' && ch != '\\' && ch != '\n') quoted += ch;
      std::string repl = "::kaudit::launch_kernel(\"" + quoted + "\", [&](auto&&... kaudit_a) { " + callee +
                         "(kaudit_a...); }, ::kaudit::LaunchConfig(" + cfg + ")";
      if (!trim(args).empty()) repl += ", " + args;
      repl += ")";
      const std::string_view original = std::string_view(text).substr(start, close + 1 - start);
      text.replace(start, close + 1 - start, keep_lines(repl, original));
      ++out.launches;
    }
  }

  std::string file(file_name);
  std::string escaped;
  for (char ch : file) { if (ch == '"' || ch == '\\') escaped += '\\'; escaped += ch; }
  out.text = "#define KAUDIT_NEEDS_FIBERS " + std::string(out.needs_fibers ? "1" : "0") +
             "\n#include <kaudit_cpu/prelude.h>\n#line 1 \"" + escaped + "\"\n" + text;
  // After the kernel, not as macros before the prelude: the precompiled prelude stays one per
  // KAUDIT_NEEDS_FIBERS value.
  out.text += std::string("\n#line 1 \"<kaudit shared memory use>\"\nnamespace kaudit::detail {\n") +
              "static bool tu_uses_static_smem() { return " + (out.uses_static_smem ? "true" : "false") + "; }\n" +
              "static bool tu_uses_dynamic_smem() { return " + (out.uses_dynamic_smem ? "true" : "false") + "; }\n" +
              "}  // namespace kaudit::detail\n";
  if (!entry.empty()) {
    // Qualified from the global namespace: an entry named `forward` next to `using namespace std`
    // is then the file's own function, not an overload set with std::forward (qualified lookup
    // does not follow using-directives into a namespace that declares the name itself).
    const std::string qualified_entry = entry.rfind("::", 0) == 0 ? std::string(entry) : "::" + std::string(entry);
    out.text += "\n#line 1 \"<kaudit entry shim>\"\nextern \"C\" __attribute__((visibility(\"default\"))) int "
                "kaudit_invoke(const ::kaudit::detail::ArgValue* a, std::size_t n, void* sink, "
                "::kaudit::detail::PushOutput push, char* err, std::size_t errlen) {\n  return "
                "::kaudit::detail::invoke_entry(&" + qualified_entry + ", a, n, sink, push, err, errlen);\n}\n";
  }
  return out;
}

}  // namespace kaudit::cpu
