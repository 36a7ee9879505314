// Mutant schemata for the CPU backend (Untch's meta-mutants): one source per kernel holding many
// mutants behind a runtime switch, built once, instead of one build per mutant.
//
// Each edit replaces source[begin, end) with `replacement`. In the schema the span becomes
//   expression form:  ((kaudit_active_mutant == 3) ? (replacement) : (original))
//   statement form:   { if (kaudit_active_mutant == 3) { replacement } else { original } }
// (statement form when the original ends a statement, `;` or `}`, or is a whole expression
// statement, which is then switched with its `;`; an insertion is an empty span, switched in
// statement form when it is a statement inserted where one may start, after `{`, `;` or `}`, and
// built standalone otherwise). Edits on the same span share one conditional chain; edits that
// overlap a chosen one without sharing its span go to the next schema (a kernel may need a few).
// A replacement goes on the span's first line (comments dropped, so that a `//` cannot swallow the
// rest of the switch); one that cannot (a preprocessor directive) is built standalone.
// A span the C++ compiler rejects in schema form (a constant expression, an array size, a
// template argument, a declaration whose scope the braces would change) is found from the first
// error's line (or the name a hidden declaration leaves undeclared) and falls back to a
// standalone build; the schema is rebuilt without it, one failed compile per such line. A
// kernel's schemata build side by side. `kaudit_active_mutant` is an exported int in the kernel library;
// 0 runs the original.
#pragma once
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "runtime/cpu/compile.h"

namespace kaudit::cpu {

struct SchemaEdit {
  std::size_t begin = 0, end = 0;
  std::string replacement;
};

struct Schema {
  std::string source;                 // the schema text (before CPU lowering)
  std::vector<std::size_t> edits;     // indices into the input edits it holds
  std::vector<int> switch_value;      // switch_value[i]: the kaudit_active_mutant value of edits[i]
  CpuBuild build;
};

struct SchemaPlan {
  std::vector<Schema> schemata;       // every edit in exactly one schema or in `standalone`
  std::vector<std::size_t> standalone;  // edits that need a build of their own
};

// Text only: the schema sources for `edits`, without compiling (exposed for tests).
std::vector<Schema> schema_sources(const std::string& source, const std::vector<SchemaEdit>& edits,
                                   const std::vector<std::size_t>& excluded = {});

// A schema's text without its switch declaration (the lines before the `#line 1` schema_sources
// puts first): what the CUDA backend builds, with the switch of runtime/cuda/build.h instead.
std::string schema_body(const std::string& schema);

// Builds schemata with the CPU compiler, moving edits the compiler rejects to `standalone`.
SchemaPlan build_schemata(const CpuCompiler& compiler, const std::string& source, const std::string& file_name,
                          const std::string& entry, const std::vector<SchemaEdit>& edits);

}  // namespace kaudit::cpu
