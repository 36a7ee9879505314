#include "mutators/ast_util.h"

#include <cctype>

#include <clang/AST/ExprCXX.h>

namespace kaudit::mutators::detail {

using namespace clang;

MatchContext::MatchContext(const ast_matchers::MatchFinder::MatchResult& result)
    : result_(result) {}

CharSourceRange MatchContext::file_range(SourceRange range) const {
  if (range.isInvalid()) return {};
  CharSourceRange cr =
      Lexer::makeFileCharRange(CharSourceRange::getTokenRange(range), sm(), lang());
  if (cr.isInvalid()) return {};
  const FileID main = sm().getMainFileID();
  if (sm().getFileID(cr.getBegin()) != main || sm().getFileID(cr.getEnd()) != main) return {};
  if (sm().getFileOffset(cr.getBegin()) > sm().getFileOffset(cr.getEnd())) return {};
  return cr;
}

CharSourceRange MatchContext::file_range(const Stmt* stmt) const {
  return stmt == nullptr ? CharSourceRange() : file_range(stmt->getSourceRange());
}

CharSourceRange MatchContext::file_range(const Decl* decl) const {
  return decl == nullptr ? CharSourceRange() : file_range(decl->getSourceRange());
}

CharSourceRange MatchContext::token_range(SourceLocation loc) const {
  return file_range(SourceRange(loc, loc));
}

namespace {
// Offset of the first character at or after `pos` that is not whitespace or a comment.
size_t skip_space_and_comments(llvm::StringRef buf, size_t pos) {
  while (pos < buf.size()) {
    const char c = buf[pos];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++pos;
    } else if (c == '/' && pos + 1 < buf.size() && buf[pos + 1] == '/') {
      while (pos < buf.size() && buf[pos] != '\n') ++pos;
    } else if (c == '/' && pos + 1 < buf.size() && buf[pos + 1] == '*') {
      const size_t close = buf.find("*/", pos + 2);
      pos = close == llvm::StringRef::npos ? buf.size() : close + 2;
    } else {
      break;
    }
  }
  return pos;
}
}  // namespace

CharSourceRange MatchContext::statement_range(const Stmt* stmt) const {
  CharSourceRange r = file_range(stmt);
  if (r.isInvalid() || isa<CompoundStmt>(stmt)) return r;
  const FileID main = sm().getMainFileID();
  const llvm::StringRef buf = sm().getBufferData(main);
  const size_t end = sm().getFileOffset(r.getEnd());
  const size_t next = skip_space_and_comments(buf, end);
  if (next < buf.size() && buf[next] == ';') {
    r.setEnd(sm().getLocForStartOfFile(main).getLocWithOffset(static_cast<int>(next + 1)));
  }
  return r;
}

std::optional<std::string> MatchContext::text(CharSourceRange range) const {
  if (range.isInvalid()) return std::nullopt;
  bool invalid = false;
  llvm::StringRef t = Lexer::getSourceText(range, sm(), lang(), &invalid);
  if (invalid) return std::nullopt;
  return t.str();
}

std::optional<std::string> MatchContext::text(const Stmt* stmt) const {
  return text(file_range(stmt));
}

std::optional<std::string> MatchContext::text_between(CharSourceRange a,
                                                      CharSourceRange b) const {
  if (a.isInvalid() || b.isInvalid()) return std::nullopt;
  const size_t from = sm().getFileOffset(a.getEnd());
  const size_t to = sm().getFileOffset(b.getBegin());
  if (from > to) return std::nullopt;
  const llvm::StringRef buf = sm().getBufferData(sm().getMainFileID());
  return buf.substr(from, to - from).str();
}

std::optional<Edit> MatchContext::replace(CharSourceRange range, std::string replacement) const {
  if (range.isInvalid()) return std::nullopt;
  return Edit{range, std::move(replacement)};
}

std::optional<Edit> MatchContext::replace(const Stmt* stmt, std::string replacement) const {
  return replace(file_range(stmt), std::move(replacement));
}

std::optional<Edit> MatchContext::replace_token(SourceLocation loc, std::string_view expected,
                                                std::string replacement) const {
  const CharSourceRange r = token_range(loc);
  const auto t = text(r);
  if (!t || *t != expected) return std::nullopt;
  return Edit{r, std::move(replacement)};
}

std::optional<Edit> MatchContext::insert_before(SourceLocation loc, std::string text) const {
  if (loc.isInvalid() || !loc.isFileID() || sm().getFileID(loc) != sm().getMainFileID()) {
    return std::nullopt;
  }
  return Edit{CharSourceRange::getCharRange(loc, loc), std::move(text)};
}

std::optional<std::string> MatchContext::operand_text(const Expr* e) const {
  auto t = text(e);
  if (!t) return std::nullopt;
  if (is_primary(e)) return t;
  return "(" + *t + ")";
}

const Expr* strip(const Expr* e) {
  while (e != nullptr) {
    const Expr* next = e->IgnoreParenImpCasts()->IgnoreImplicit();
    next = next->IgnoreParenImpCasts();
    if (const auto* ctor = dyn_cast<CXXConstructExpr>(next)) {
      // An implicit converting construction (e.g. unsigned -> dim3 in a launch configuration).
      if (!isa<CXXTemporaryObjectExpr>(ctor) && ctor->getParenOrBraceRange().isInvalid() &&
          ctor->getNumArgs() >= 1 && !ctor->isListInitialization()) {
        next = ctor->getArg(0);
      }
    }
    if (next == e) break;
    e = next;
  }
  return e;
}

bool is_primary(const Expr* e) {
  e = e->IgnoreImplicit();
  if (isa<ParenExpr, DeclRefExpr, IntegerLiteral, FloatingLiteral, CharacterLiteral,
          StringLiteral, CXXBoolLiteralExpr, CXXNullPtrLiteralExpr, MemberExpr,
          ArraySubscriptExpr, PseudoObjectExpr, MSPropertyRefExpr, UnaryExprOrTypeTraitExpr,
          CastExpr, SubstNonTypeTemplateParmExpr, CXXDependentScopeMemberExpr,
          DependentScopeDeclRefExpr, UnresolvedLookupExpr>(e)) {
    return true;
  }
  if (const auto* op = dyn_cast<CXXOperatorCallExpr>(e)) {
    const auto k = op->getOperator();
    return k == OO_Subscript || k == OO_Call || k == OO_Arrow;
  }
  if (isa<CallExpr>(e)) return true;
  if (isa<UnaryOperator>(e)) return true;  // prefix and postfix bind tighter than binary ops
  return false;
}

std::string callee_name(const CallExpr* call) {
  if (call == nullptr) return {};
  if (const FunctionDecl* fd = call->getDirectCallee()) return fd->getNameAsString();
  const Expr* callee = call->getCallee()->IgnoreParenImpCasts();
  if (const auto* ule = dyn_cast<UnresolvedLookupExpr>(callee)) return ule->getName().getAsString();
  return {};
}

bool references(const Stmt* s, const ValueDecl* var) {
  if (s == nullptr || var == nullptr) return false;
  if (const auto* dre = dyn_cast<DeclRefExpr>(s)) {
    if (dre->getDecl() == var) return true;
  }
  for (const Stmt* child : s->children()) {
    if (references(child, var)) return true;
  }
  return false;
}

const VarDecl* referenced_var(const Expr* e) {
  if (e == nullptr) return nullptr;
  e = e->IgnoreParenCasts();
  if (const auto* dre = dyn_cast<DeclRefExpr>(e)) return dyn_cast<VarDecl>(dre->getDecl());
  return nullptr;
}

bool is_number_token(std::string_view text) {
  if (text.empty()) return false;
  const auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  if (!digit(text[0]) && !(text[0] == '.' && text.size() > 1 && digit(text[1]))) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '\'') continue;
    if ((c == '+' || c == '-') && i > 0 &&
        (text[i - 1] == 'e' || text[i - 1] == 'E' || text[i - 1] == 'p' || text[i - 1] == 'P')) {
      continue;
    }
    return false;
  }
  return true;
}

std::optional<std::string> respell_int_literal(std::string_view original, uint64_t value) {
  if (!is_number_token(original)) return std::nullopt;
  size_t suffix_start = original.size();
  while (suffix_start > 0 && std::string_view("uUlLzZ").find(original[suffix_start - 1]) !=
                                 std::string_view::npos) {
    --suffix_start;
  }
  const std::string_view suffix = original.substr(suffix_start);
  const std::string_view body = original.substr(0, suffix_start);
  const bool hex = body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X');
  std::string out;
  if (hex) {
    bool upper = false;
    for (char c : body.substr(2)) upper = upper || (c >= 'A' && c <= 'F');
    static const char* lower_digits = "0123456789abcdef";
    static const char* upper_digits = "0123456789ABCDEF";
    const char* digits = upper ? upper_digits : lower_digits;
    std::string h;
    uint64_t v = value;
    do {
      h.insert(h.begin(), digits[v & 15u]);
      v >>= 4;
    } while (v != 0);
    out = std::string(body.substr(0, 2)) + h;
  } else {
    out = std::to_string(value);
  }
  out += suffix;
  return out;
}

std::string respell_float_literal(std::string_view original, std::string_view digits) {
  size_t suffix_start = original.size();
  while (suffix_start > 0 &&
         std::string_view("fFlL").find(original[suffix_start - 1]) != std::string_view::npos) {
    --suffix_start;
  }
  // A hex float has 'p' exponents; its 'f' suffix logic is the same.
  return std::string(digits) + std::string(original.substr(suffix_start));
}

}  // namespace kaudit::mutators::detail
