// Helpers shared by CLI subcommands: the cache directory, the built-in corpus location.
#pragma once
#include "common/files.h"
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "corpus/corpus.h"

namespace kaudit::cli {
// $KAUDIT_CACHE, else $XDG_CACHE_HOME/kaudit, else ~/.cache/kaudit; empty when none is set
// (kaudit::cache::prepare_dir then refuses it with an error saying what to set).
std::filesystem::path default_cache_dir();
// The corpus/ folder of this source tree.
std::filesystem::path builtin_corpus_dir();
// The suites/ folder of this source tree (built-in oracle specs).
std::filesystem::path builtin_suites_dir();
// The value after flag args[i] (i moves onto it); std::invalid_argument "FLAG needs a value" at
// the end of the arguments.
std::string flag_value(const std::vector<std::string>& args, std::size_t& i, const char* flag);
// Strict number flags: the whole text must be the number, within [min, max]; otherwise a
// std::invalid_argument that names the flag, the accepted range and the text given.
// A whole number in decimal digits (no sign, no spaces, no exponent).
unsigned long long parse_count_flag(const std::string& flag, const std::string& text, unsigned long long min,
                                    unsigned long long max);
// A finite real number (decimal or exponent form) in [min, max].
double parse_real_flag(const std::string& flag, const std::string& text, double min, double max);
// --backend's value: false for "cpu", true for "cuda"; std::invalid_argument otherwise.
bool parse_backend_flag(const std::string& text);
// Why `kaudit <command> --backend cuda` cannot run on this machine, in one line, or empty when it
// can. When it can, readies this process to run references on the GPU (cuda/device.h,
// prepare_host_process): call it before any thread starts.
std::string cuda_backend_problem();
// "CPU backend", or "CUDA backend, <GPU>, references: float32 on cuda:0, float64 on the host" (where
// oracle/reference.h's placement puts them), as reports say it.
std::string backend_description(bool cuda);
// The tasks of `--kernel TASK/NAME` ids (empty when none are given: every task).
std::vector<std::string> tasks_of(const std::vector<std::string>& kernel_ids);
// `--preset P`: every task that is run (`tasks`, or every task of the corpus when empty) must
// define P (an input at a missing preset is no input at all). Otherwise an error naming the first
// task without it, the presets it has and its task.json; empty when all have it.
std::string missing_preset(const corpus::Corpus& corpus, const std::vector<std::string>& tasks,
                           const std::string& preset);
// The corpus at `root`, or nullopt after its diagnostics (file, place, fix) were printed on stderr.
std::optional<corpus::LoadResult> load_corpus_or_report(const std::filesystem::path& root);
// Tells on stderr which kernels load_corpus left out because the gate rejected them at import.
void note_unverified(const char* command, const corpus::LoadResult& loaded);
}  // namespace kaudit::cli
