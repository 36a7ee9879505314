// kaudit::calibrate -- the GPU calibration of oracle mode (docs/ORACLES.md, Calibration).
//
// Oracle mode models what a checker's harness sees on a GPU; the GPU itself is the ground truth.
// A calibration bundle carries a finished audit's mutants to a machine with a GPU, where
// tools/gpu/calibrate.py runs each of them under the real checker's loop (a replica of
// KernelBench's run_and_check_correctness, on PyTorch's CUDA allocator) with the same inputs, and
// compares the GPU's verdicts with the CPU's. The bundle (a folder) holds:
//   manifest.json     the checks (name, tolerance, trial names), tasks, kernels, builds and mutants,
//                     with each mutant's CPU verdicts (oracle mode and witness mode) and causes;
//   builds/<lib>.cu   kernel sources for nvcc: a mutant schema (the CPU backend's, its switch made a
//                     __device__ variable) or a mutant built on its own, with the entry registered
//                     as the torch operator <lib>::entry (tools/gpu/include/kaudit_gpu_entry.h);
//   tensors/<sha>.bin raw little-endian tensor bytes (Model parameters), named by content;
//   inputs/<task>--<check>.py the check's trial inputs as `kaudit export` writes them: the
//                     recipes and a Python copy of their generator, equal to kaudit's bit for bit;
//   problems/<task>.py the tasks' problem.py.
#pragma once
#include <cstddef>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "corpus/corpus.h"
#include "oracle/spec.h"

namespace kaudit::calibrate {

struct BundleOptions {
  std::filesystem::path audit_dir;  // a finished `kaudit audit --out DIR` (kill-matrix.jsonl)
  std::filesystem::path out;
  std::filesystem::path cache_dir;
  // Witnessed mutants per family, chosen by SHA-256 of their id (the same on every machine);
  // every witnessed synchronization mutant is taken (races are what the GPU settles).
  std::size_t per_family = 30;
  // When not empty: exactly these mutants (by id; each must be witnessed in the audit), instead
  // of the per-family choice. For a calibration aimed at one question (docs/calibration/*).
  std::set<std::string> only;
};

struct BundleSummary {
  std::size_t mutants = 0, builds = 0, schemata = 0;
  std::map<std::string, std::size_t> per_family;
  std::vector<std::string> problems;  // what was left out, and why
};

// `checks`: the oracle specs the GPU runs (their trials, at their shape preset). Throws
// std::runtime_error naming the file for a missing or malformed kill matrix.
BundleSummary write_gpu_bundle(const corpus::Corpus& corpus, const std::vector<oracle::OracleSpec>& checks,
                               const BundleOptions& options);

}  // namespace kaudit::calibrate
