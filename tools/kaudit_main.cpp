// kaudit: one binary, one subcommand per pipeline stage. This file only wires the modules.
#include <dlfcn.h>
#include <execinfo.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "audit/spill.h"
#include "common/cache.h"
#include "mutators/mutators.h"
#include "oracle/external.h"
#include "tools/cli.h"

namespace {
void usage() {
  std::puts(
      "usage: kaudit <command> [options]\n\n"
      "commands:\n"
      "  audit [--oracle SPEC]... [--json]  score oracles on the corpus mutants (the main job)\n"
      "  cover [--budget K] [--out suite.json]  minimal hidden-input suites, held-out detection\n"
      "  report DIR [--format md|json|mte|html]  a finished audit's reports, read from its run directory\n"
      "  merge SHARD_DIR... --out DIR  one run directory from the shards of `audit --shard I/N`\n"
      "  diff BASE HEAD [--fail-on-regression]  detection and false-kill deltas between two checkers\n"
      "  sweep --oracle SPEC --tolerances LIST  a checker's detection and false kills per tolerance\n"
      "  export SUITE --format kernelbench-hidden|json --out DIR  a suite's inputs for other harnesses\n"
      "  import kernelbench SOLUTION|DIR --problem P  add KernelBench solutions to a corpus (verified)\n"
      "  verify [PATH] [--json]   run the verification gate over a corpus (default: the built-in one)\n"
      "  check [PATH] [--oracle SPEC]...  run oracle specs on the corpus kernels (false kills)\n"
      "  rules [--json]           list the mutation rule catalog\n"
      "  mutate [PATH] [--json]   generate, compile and classify every mutant (mutants.jsonl)\n"
      "  gpu-bundle --from AUDIT_DIR --out DIR  an audit's mutants for a GPU check of oracle mode\n"
      "  export-mutants RUN_DIR --format kernelbench-solution --out DIR  mutants as KernelBench solutions\n"
      "  worker                   (internal) serve isolated kernel runs on stdin/stdout\n\n"
      "Run `kaudit <command> --help` for the options of a command.");
}
// A fault in kaudit's own process (never in kernel code, which runs in workers) is a bug: say so
// with what a maintainer needs to find it (`addr2line -e kaudit OFFSET` for each frame; the
// faulting address, and the return address on the stack for a call through a null pointer, where
// the unwinder stops), then die of the signal.
void say_address(const char* label, void* address) {
  char line[512];
  Dl_info info{};
  int n;
  if (address && dladdr(address, &info) && info.dli_fname)
    n = std::snprintf(line, sizeof line, "  %s %p = %s+0x%lx (%s)\n", label, address, info.dli_fname,
                      static_cast<unsigned long>(static_cast<char*>(address) - static_cast<char*>(info.dli_fbase)),
                      info.dli_sname ? info.dli_sname : "?");
  else
    n = std::snprintf(line, sizeof line, "  %s %p\n", label, address);
  ssize_t ignored = write(2, line, static_cast<std::size_t>(n));
  (void)ignored;
}

void report_internal_fault(int sig, siginfo_t* info, void* context) {
  constexpr char kHead[] = "kaudit: internal error (a fault in kaudit's own process, not in a kernel)\n";
  ssize_t ignored = write(2, kHead, sizeof kHead - 1);
  (void)ignored;
  say_address("fault address", info ? info->si_addr : nullptr);
#if defined(__x86_64__)
  const auto* uc = static_cast<const ucontext_t*>(context);
  say_address("instruction", reinterpret_cast<void*>(uc->uc_mcontext.gregs[REG_RIP]));
  say_address("return address at the stack pointer", *reinterpret_cast<void* const*>(uc->uc_mcontext.gregs[REG_RSP]));
#else
  (void)context;
#endif
  void* frames[64];
  backtrace_symbols_fd(frames, backtrace(frames, 64), 2);
  std::signal(sig, SIG_DFL);
  raise(sig);
}

void install_fault_reporter() {
  static char alternate_stack[64 * 1024];  // a stack overflow still gets its report
  stack_t ss{};
  ss.ss_sp = alternate_stack;
  ss.ss_size = sizeof alternate_stack;
  sigaltstack(&ss, nullptr);
  void* warm[1];
  backtrace(warm, 1);  // loads libgcc's unwinder now, not inside the handler
  struct sigaction sa{};
  sa.sa_sigaction = report_internal_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) sigaction(sig, &sa, nullptr);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    usage();
    return argc < 2 ? 2 : 0;
  }
  const std::string cmd = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  // Commands that generate mutants need the Clang rule engine. A kaudit built without it
  // (KAUDIT_WITH_CLANG, mutators/no_clang.cpp) stops them here, before any work, with one line;
  // their --help still works. (diff needs mutants only for a checker given as a spec instead of an
  // audit folder; it then stops with the same line, from the catch below.)
  const bool wants_help =
      std::any_of(args.begin(), args.end(), [](const std::string& a) { return a == "--help" || a == "-h"; });
  // An audit given a mutant set (--mutants, made where Clang is) needs no Clang.
  // Nor does one that scores a harness on exported solutions (--oracle-command).
  const bool has_mutant_set = std::find(args.begin(), args.end(), "--mutants") != args.end() ||
                              std::find(args.begin(), args.end(), "--oracle-command") != args.end();
  for (const char* needs_clang : {"mutate", "rules", "audit", "cover", "sweep", "gpu-bundle", "export-mutants"}) {
    const bool set_will_do = has_mutant_set && (cmd == "audit" || cmd == "cover" || cmd == "sweep");
    if (cmd == needs_clang && !wants_help && !set_will_do && !kaudit::mutators::clang_available()) {
      std::fprintf(stderr, "kaudit %s: %s\n", cmd.c_str(), kaudit::mutators::ClangUnavailable().what());
      return 2;
    }
  }
  if (cmd != "worker") install_fault_reporter();  // a worker's faults are its runs' verdicts
  try {
    if (cmd == "worker") return kaudit::cli::worker_command(args);
    if (cmd == "verify") return kaudit::cli::verify_command(args);
    if (cmd == "check") return kaudit::cli::check_command(args);
    if (cmd == "rules") return kaudit::cli::rules_command(args);
    if (cmd == "audit") return kaudit::cli::audit_command(args);
    if (cmd == "mutate") return kaudit::cli::mutate_command(args);
    if (cmd == "cover") return kaudit::cli::cover_command(args);
    if (cmd == "diff") return kaudit::cli::diff_command(args);
    if (cmd == "report") return kaudit::cli::report_command(args);
    if (cmd == "merge") return kaudit::cli::merge_command(args);
    if (cmd == "sweep") return kaudit::cli::sweep_command(args);
    if (cmd == "export") return kaudit::cli::export_command(args);
    if (cmd == "import") return kaudit::cli::import_command(args);
    if (cmd == "gpu-bundle") return kaudit::cli::gpu_bundle_command(args);
    if (cmd == "export-mutants") return kaudit::cli::export_mutants_command(args);
  } catch (const kaudit::cache::CacheDirError& e) {  // a cache folder kaudit refuses (common/cache.h)
    std::fprintf(stderr, "kaudit %s: %s\n", cmd.c_str(), e.what());
    return 2;
  } catch (const kaudit::audit::SpillError& e) {  // a pool larger than memory and its folder's disk (audit/spill.h)
    std::fprintf(stderr, "kaudit %s: %s\n", cmd.c_str(), e.what());
    return 2;
  } catch (const kaudit::mutators::ClangUnavailable& e) {  // mutants wanted from a kaudit without Clang
    std::fprintf(stderr, "kaudit %s: %s\n", cmd.c_str(), e.what());
    return 2;
  } catch (const kaudit::oracle::ExternalCheckerError& e) {  // a user's checker that left the protocol
    std::fprintf(stderr, "kaudit %s: %s\n(what was finished is cached: fix the checker and run the command again)\n",
                 cmd.c_str(), e.what());
    return 1;
  }
  std::fprintf(stderr, "kaudit: unknown command '%s'\n", cmd.c_str());
  usage();
  return 2;
}
