// Helpers shared by CLI subcommands: the cache directory, the built-in corpus location.
#pragma once
#include <filesystem>
#include <string>

namespace kaudit::cli {
// $KAUDIT_CACHE, else $XDG_CACHE_HOME/kaudit, else ~/.cache/kaudit.
std::filesystem::path default_cache_dir();
// The corpus/ folder of this source tree.
std::filesystem::path builtin_corpus_dir();
// The suites/ folder of this source tree (built-in oracle specs).
std::filesystem::path builtin_suites_dir();
}  // namespace kaudit::cli
