// End-to-end: every corpus kernel and every fixture compiles through NVRTC, and every template
// kernel's instantiation is in the image (a changed constant inside its body changes the hash).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "corpus/corpus.h"
#include "mutators/compile/nvrtc.h"
#include "test_util.h"

namespace kaudit::mutators {
namespace {

using testing::corpus_dir;
using testing::fixtures_dir;
using testing::read_text;
using testing::TempCacheDir;

// A __global__ function template found in a kernel text: its name and the byte range of its body.
struct TemplateKernel {
  std::string name;
  size_t body_begin = 0;  // just after '{'
  size_t body_end = 0;    // at the matching '}'
};

// Blanks out comments and string/char literals (same length) so that scanning sees code only.
std::string code_only(const std::string& s) {
  std::string out = s;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 2, "//") == 0) {
      while (i < s.size() && s[i] != '\n') out[i++] = ' ';
    } else if (s.compare(i, 2, "/*") == 0) {
      size_t end = s.find("*/", i + 2);
      end = end == std::string::npos ? s.size() : end + 2;
      for (; i < end; ++i)
        if (s[i] != '\n') out[i] = ' ';
      --i;
    } else if (s[i] == '"' || s[i] == '\'') {
      const char q = s[i++];
      while (i < s.size() && s[i] != q) {
        if (s[i] == '\\') out[i++] = ' ';
        if (i < s.size()) out[i++] = ' ';
      }
    }
  }
  return out;
}

size_t match_close(const std::string& code, size_t open, char o, char c) {
  int depth = 0;
  for (size_t i = open; i < code.size(); ++i) {
    if (code[i] == o) ++depth;
    if (code[i] == c && --depth == 0) return i;
  }
  return std::string::npos;
}

std::vector<TemplateKernel> template_kernels(const std::string& source) {
  const std::string code = code_only(source);
  std::vector<TemplateKernel> out;
  static const std::regex kHead(R"(template\s*<[^;{]*?>\s*__global__\s+[^;{(]*?\b(\w+)\s*\()");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), kHead);
       it != std::sregex_iterator(); ++it) {
    const size_t paren = static_cast<size_t>(it->position(0) + it->length(0) - 1);
    const size_t close = match_close(code, paren, '(', ')');
    if (close == std::string::npos) continue;
    const size_t brace = code.find_first_of("{;", close);
    if (brace == std::string::npos || code[brace] != '{') continue;  // a declaration
    const size_t end = match_close(code, brace, '{', '}');
    if (end == std::string::npos) continue;
    out.push_back({(*it)[1].str(), brace + 1, end});
  }
  return out;
}

// Numeric literals in [begin, end) of the code (not on preprocessor lines): (offset, length).
std::vector<std::pair<size_t, size_t>> literals(const std::string& code, size_t begin, size_t end) {
  std::vector<std::pair<size_t, size_t>> out;
  static const std::regex kLit(R"((?:0[xX][0-9a-fA-F]+|\d+\.?\d*(?:[eE][-+]?\d+)?)[uUlLfF]*)");
  std::string body = code.substr(begin, end - begin);
  for (auto it = std::sregex_iterator(body.begin(), body.end(), kLit); it != std::sregex_iterator();
       ++it) {
    const size_t pos = begin + static_cast<size_t>(it->position(0));
    if (pos > 0 && (std::isalnum(static_cast<unsigned char>(code[pos - 1])) ||
                    code[pos - 1] == '_' || code[pos - 1] == '.'))
      continue;  // part of an identifier such as float4 or x2
    const size_t line_start =
        code.rfind('\n', pos) == std::string::npos ? 0 : code.rfind('\n', pos) + 1;
    const size_t first = code.find_first_not_of(" \t", line_start);
    if (first != std::string::npos && code[first] == '#') continue;  // #pragma unroll 4
    out.emplace_back(pos, static_cast<size_t>(it->length(0)));
  }
  return out;
}

TEST(NvrtcCorpus, EveryCorpusKernelCompiles) {
  TempCacheDir dir;
  NvrtcCompiler nvrtc(dir.path());
  KAUDIT_REQUIRE_NVRTC(nvrtc);
  auto loaded = corpus::load_corpus(corpus_dir());
  ASSERT_GE(loaded.corpus.kernels.size(), 33u);
  std::vector<std::string> sources;
  for (const auto& k : loaded.corpus.kernels) sources.push_back(k.source);
  auto results = compile_all(nvrtc, sources, "kernel.cu");
  std::set<std::string> images;
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& k = loaded.corpus.kernels[i];
    EXPECT_EQ(results[i].status, CompileResult::Ok)
        << k.id() << ": " << results[i].first_diagnostic << "\n"
        << results[i].log;
    EXPECT_FALSE(results[i].cache_hit);
    images.insert(results[i].image_sha256);
  }
  EXPECT_EQ(images.size(), results.size()) << "two different kernels compiled to one image";

  // Warm: everything comes from the cache, with the same hashes.
  auto warm = compile_all(nvrtc, sources, "kernel.cu");
  for (size_t i = 0; i < warm.size(); ++i) {
    EXPECT_TRUE(warm[i].cache_hit) << loaded.corpus.kernels[i].id();
    EXPECT_EQ(warm[i].image_sha256, results[i].image_sha256);
  }
}

TEST(NvrtcCorpus, EveryTemplateKernelIsInstantiatedInTheImage) {
  NvrtcCompiler nvrtc("");
  KAUDIT_REQUIRE_NVRTC(nvrtc);
  auto loaded = corpus::load_corpus(corpus_dir());
  std::vector<std::pair<std::string, std::string>> texts;  // (id, source)
  for (const auto& k : loaded.corpus.kernels) texts.emplace_back(k.id(), k.source);
  for (const char* f : {"accessor_dispatch.cu", "bf16_and2.cu", "const_mem_smem.cu",
                        "deduced_host_template.cu", "half_dispatch.cu", "stream_guard_vector.cu"})
    texts.emplace_back(std::string("fixture/") + f, read_text(fixtures_dir() / f));

  int templates_checked = 0;
  for (const auto& [id, src] : texts) {
    const auto kernels = template_kernels(src);
    if (kernels.empty()) continue;
    const CompileResult orig = nvrtc.compile(src, id);
    ASSERT_TRUE(orig.ok()) << id << ": " << orig.log;
    const std::string code = code_only(src);
    for (const TemplateKernel& t : kernels) {
      SCOPED_TRACE(id + " " + t.name);
      // Change the literals of the body one at a time (L -> (L + 1)) until the image changes; a
      // template that is not instantiated never changes it. At most 4 tries per kernel. A body
      // without literals gets a fence at its start instead.
      const auto lits = literals(code, t.body_begin, t.body_end);
      bool changed = false;
      std::string tried;
      for (size_t i = 0; i < lits.size() && i < 4 && !changed; ++i) {
        const auto [pos, len] = lits[i];
        std::string mutant = src;
        mutant.replace(pos, len, "(" + src.substr(pos, len) + " + 1)");
        const CompileResult m = nvrtc.compile(mutant, id);
        ASSERT_TRUE(m.ok()) << m.first_diagnostic;
        changed = m.image_sha256 != orig.image_sha256;
        tried += " " + src.substr(pos, len);
      }
      if (lits.empty()) {
        std::string mutant = src;
        mutant.insert(t.body_begin, " __threadfence_block(); ");
        const CompileResult m = nvrtc.compile(mutant, id);
        ASSERT_TRUE(m.ok()) << m.first_diagnostic;
        changed = m.image_sha256 != orig.image_sha256;
        tried = " (fence)";
      }
      EXPECT_TRUE(changed) << "no constant change in " << t.name
                           << " changed the image (tried:" << tried << ")";
      ++templates_checked;
    }
  }
  // The built-in corpus alone has a dozen template kernels.
  EXPECT_GE(templates_checked, 15);
}

TEST(NvrtcCorpus, RealWorldStyleFixturesCompile) {
  NvrtcCompiler nvrtc("");
  NvrtcOptions device_only_options;
  device_only_options.host_code_in_image = false;
  NvrtcCompiler device_only("", device_only_options);
  KAUDIT_REQUIRE_NVRTC(nvrtc);
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(fixtures_dir()))
    if (e.path().extension() == ".cu") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 10u);
  for (const auto& f : files) {
    const std::string src = read_text(f);
    for (const NvrtcCompiler* c : {&nvrtc, &device_only}) {
      CompileResult r = c->compile(src, f.filename().string());
      EXPECT_EQ(r.status, CompileResult::Ok)
          << f.filename() << " (host_code_in_image=" << (c == &nvrtc) << "): " << r.first_diagnostic
          << "\n"
          << r.log;
    }
  }
}

}  // namespace
}  // namespace kaudit::mutators
