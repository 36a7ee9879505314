// Site finding: parse, run every selected rule in one MatchFinder pass, keep the edits that land
// in the kernel file inside the rule's scopes, dedupe and order them.
#include <algorithm>
#include <optional>

#include <clang/Lex/Lexer.h>
#include <exception>
#include <memory>
#include <set>
#include <stdexcept>
#include <tuple>

#include "mutators/launch_scope.h"
#include "mutators/parse.h"
#include "mutators/rule.h"

namespace kaudit::mutators {

namespace {

using namespace clang::ast_matchers;

struct RawEdit {
  const detail::RuleDef* rule;
  size_t begin;
  size_t end;
  std::string replacement;
  size_t schema_begin;
  size_t schema_end;
};

// For an edit strictly inside the bound "site" expression (an operator token, a member name, one
// operand): that expression's main-file range, which a runtime switch can wrap (a lone token or a
// fragment cannot be). Else nullopt.
std::optional<std::pair<size_t, size_t>> enclosing_expression(const MatchFinder::MatchResult& result, size_t begin,
                                                              size_t end) {
  const auto* site = result.Nodes.getNodeAs<clang::Expr>("site");
  if (site == nullptr) return std::nullopt;
  const clang::SourceManager& sm = *result.SourceManager;
  const clang::CharSourceRange r = clang::Lexer::makeFileCharRange(
      clang::CharSourceRange::getTokenRange(site->getSourceRange()), sm, result.Context->getLangOpts());
  if (r.isInvalid() || sm.getFileID(r.getBegin()) != sm.getMainFileID()) return std::nullopt;
  const size_t node_begin = sm.getFileOffset(r.getBegin());
  const size_t node_end = sm.getFileOffset(r.getEnd());
  if (node_begin > begin || node_end < end) return std::nullopt;
  return std::make_pair(node_begin, node_end);
}

class Callback : public MatchFinder::MatchCallback {
 public:
  Callback(const detail::RuleDef& rule, std::vector<RawEdit>& out) : rule_(rule), out_(out) {}

  void run(const MatchFinder::MatchResult& result) override {
    const detail::MatchContext ctx(result);
    std::optional<detail::Edit> edit = rule_.produce(ctx);
    if (!edit || edit->range.isInvalid()) return;
    const clang::SourceManager& sm = *result.SourceManager;
    const clang::FileID main = sm.getMainFileID();
    const clang::SourceLocation b = edit->range.getBegin();
    const clang::SourceLocation e = edit->range.getEnd();
    if (!b.isFileID() || !e.isFileID() || sm.getFileID(b) != main || sm.getFileID(e) != main) {
      return;
    }
    const size_t begin = sm.getFileOffset(b);
    const size_t end = sm.getFileOffset(e);
    if (begin > end) return;
    const auto span = enclosing_expression(result, begin, end);
    out_.push_back(RawEdit{&rule_, begin, end, std::move(edit->replacement), span ? span->first : begin,
                           span ? span->second : end});
  }

  std::optional<clang::TraversalKind> getCheckTraversalKind() const override {
    return clang::TK_AsIs;
  }

 private:
  const detail::RuleDef& rule_;
  std::vector<RawEdit>& out_;
};

std::pair<int, int> line_col(std::string_view text, size_t offset) {
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return {line, static_cast<int>(offset - line_start) + 1};
}

std::vector<const detail::RuleDef*> select_rules(const SiteOptions& options) {
  std::vector<const detail::RuleDef*> out;
  const auto& all = options.neutral ? detail::neutral_rule_defs() : detail::all_rule_defs();
  if (options.rules.empty()) {
    for (const auto& r : all) out.push_back(&r);
    return out;
  }
  for (const std::string& id : options.rules) {
    const auto it = std::find_if(all.begin(), all.end(),
                                 [&](const detail::RuleDef& r) { return id == r.id; });
    if (it == all.end()) throw std::invalid_argument("unknown mutator rule: " + id);
    if (std::find(out.begin(), out.end(), &*it) == out.end()) out.push_back(&*it);
  }
  return out;
}

}  // namespace

bool clang_available() { return true; }

SiteResult find_sites(const KernelSourceInfo& kernel, const SiteOptions& options) {
  const std::vector<const detail::RuleDef*> rules = select_rules(options);
  SiteResult result;
  std::vector<RawEdit> edits;
  detail::ScopeMap scopes;

  // LLVM is built without exceptions: nothing may propagate through the frontend, so a failure
  // inside the callback is carried out and rethrown once clang has returned.
  std::exception_ptr failure;
  const auto on_ast = [&](clang::ASTContext& context) {
    try {
      scopes = detail::compute_scopes(context);
      MatchFinder finder;
      std::vector<std::unique_ptr<Callback>> callbacks;
      for (const detail::RuleDef* rule : rules) {
        callbacks.push_back(std::make_unique<Callback>(*rule, edits));
        if (!finder.addDynamicMatcher(rule->matcher(), callbacks.back().get())) {
          throw std::logic_error(std::string("mutator rule has an unusable matcher: ") +
                                 rule->id);
        }
      }
      finder.matchAST(context);
    } catch (...) {
      failure = std::current_exception();
    }
  };
  result.parsed = detail::parse_kernel(kernel, on_ast, result.diagnostics);
  if (failure) std::rethrow_exception(failure);
  if (!result.parsed) return result;

  // Dedupe (template instantiations and overlapping matchers give the same edit several times)
  // and order by (begin, rule id, end, replacement).
  using Key = std::tuple<size_t, std::string_view, size_t, std::string_view>;
  std::set<Key> seen;
  std::vector<const RawEdit*> kept;
  for (const RawEdit& e : edits) {
    if (!scopes.allows(e.rule->scopes, e.begin, e.end)) continue;
    if (kernel.source.compare(e.begin, e.end - e.begin, e.replacement) == 0) continue;  // no-op
    if (seen.insert(Key{e.begin, e.rule->id, e.end, e.replacement}).second) kept.push_back(&e);
  }
  std::sort(kept.begin(), kept.end(), [](const RawEdit* a, const RawEdit* b) {
    return Key{a->begin, a->rule->id, a->end, a->replacement} <
           Key{b->begin, b->rule->id, b->end, b->replacement};
  });
  for (const RawEdit* e : kept) {
    Site s;
    s.rule = e->rule->id;
    s.family = e->rule->family;
    s.file = kernel.file;
    s.begin = e->begin;
    s.end = e->end;
    const auto [bl, bc] = line_col(kernel.source, e->begin);
    const auto [el, ec] = line_col(kernel.source, e->end);
    s.begin_pos = SourcePos{bl, bc};
    s.end_pos = SourcePos{el, ec};
    s.original = kernel.source.substr(e->begin, e->end - e->begin);
    s.replacement = e->replacement;
    s.schema_begin = e->schema_begin;
    s.schema_end = e->schema_end;
    result.sites.push_back(std::move(s));
  }
  return result;
}

}  // namespace kaudit::mutators
