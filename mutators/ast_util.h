// Internal: source-range and text helpers for rule producers (not part of the public API).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>
#include <clang/AST/Stmt.h>
#include <clang/ASTMatchers/ASTMatchFinder.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>

namespace kaudit::mutators::detail {

// One rewrite: replace the characters of `range` (a char range in the main file) by
// `replacement`. An empty range is an insertion.
struct Edit {
  clang::CharSourceRange range;
  std::string replacement;
};

// What a rule's producer sees for one match: the bound nodes plus helpers that map AST nodes to
// main-file text. Every helper returns an invalid range / nullopt when the code is not spelled in
// the kernel file itself (prelude, macro bodies), so producers never rewrite what they cannot see.
class MatchContext {
 public:
  explicit MatchContext(const clang::ast_matchers::MatchFinder::MatchResult& result);

  template <typename T>
  const T* node(llvm::StringRef id) const {
    return result_.Nodes.getNodeAs<T>(id);
  }
  clang::ASTContext& ast() const { return *result_.Context; }
  const clang::SourceManager& sm() const { return *result_.SourceManager; }
  const clang::LangOptions& lang() const { return result_.Context->getLangOpts(); }

  // The main-file char range covering the tokens of `range`; invalid if any part is outside the
  // main file or inside a macro body (macro arguments are fine).
  clang::CharSourceRange file_range(clang::SourceRange range) const;
  clang::CharSourceRange file_range(const clang::Stmt* stmt) const;
  clang::CharSourceRange file_range(const clang::Decl* decl) const;
  // The single token starting at `loc`.
  clang::CharSourceRange token_range(clang::SourceLocation loc) const;
  // `stmt` plus its terminating ';' when it has one (expression statements, declarations,
  // return/break/continue, and if/for/while whose last sub-statement is not a block).
  clang::CharSourceRange statement_range(const clang::Stmt* stmt) const;

  std::optional<std::string> text(clang::CharSourceRange range) const;
  std::optional<std::string> text(const clang::Stmt* stmt) const;
  // Characters from the end of `a` to the start of `b` (both valid main-file ranges, a before b).
  std::optional<std::string> text_between(clang::CharSourceRange a, clang::CharSourceRange b) const;

  // Edits. All return nullopt when the target is not rewritable (see above).
  std::optional<Edit> replace(clang::CharSourceRange range, std::string replacement) const;
  std::optional<Edit> replace(const clang::Stmt* stmt, std::string replacement) const;
  // Replace the token at `loc`, but only if it is spelled `expected` (guards against implicit
  // nodes whose location points at some other token).
  std::optional<Edit> replace_token(clang::SourceLocation loc, std::string_view expected,
                                    std::string replacement) const;
  // Insert `text` just before the character at `loc` (a main-file location).
  std::optional<Edit> insert_before(clang::SourceLocation loc, std::string text) const;

  // The source text of `e`, wrapped in parentheses unless it is a primary expression.
  std::optional<std::string> operand_text(const clang::Expr* e) const;

 private:
  const clang::ast_matchers::MatchFinder::MatchResult& result_;
};

// Strips parentheses and implicit nodes (casts, temporaries, implicit conversions by constructor).
const clang::Expr* strip(const clang::Expr* e);
// True for expressions that need no parentheses as an operand: names, literals, calls, member
// access, subscripts, parenthesised expressions, sizeof.
bool is_primary(const clang::Expr* e);
// The name of the function a call calls directly ("" when indirect).
std::string callee_name(const clang::CallExpr* call);
// True if `e` refers (anywhere inside) to variable `var`.
bool references(const clang::Stmt* s, const clang::ValueDecl* var);
// The variable a (possibly parenthesised/cast) expression names, or null.
const clang::VarDecl* referenced_var(const clang::Expr* e);

// Integer-literal spelling helpers: keep the base (hex stays hex) and the suffix of `original`.
std::optional<std::string> respell_int_literal(std::string_view original, uint64_t value);
// Float-literal spelling: "1.0" + the suffix of `original` (f, F, l, L or none).
std::string respell_float_literal(std::string_view original, std::string_view digits);
// True when `text` is one numeric-literal token (e.g. "32", "0x1fu", "1.0e-5f").
bool is_number_token(std::string_view text);

}  // namespace kaudit::mutators::detail
