// Integrity of kaudit's cache (docs/ARCHITECTURE.md, Caches; docs/SECURITY.md).
//
// Every cached artifact is found by the hash of its inputs (its file name) and checked against the
// hash of its contents when read:
//   - records (JSON text: audit results, NVRTC results, reference metadata) carry it in their
//     first line, "kaudit-sha256 <hex of the rest>", so a record and its digest are renamed into
//     place together;
//   - binary artifacts (CPU kernel libraries, precompiled preludes, exported references) have a
//     sidecar "<file>.sha256", written before the file is renamed into place.
// A damaged artifact (a digest that does not match) is reported once on stderr, naming the file,
// removed, and the caller recomputes it; one without a digest (written by an older kaudit) is
// recomputed silently. Writes go to a temporary file in the same folder and are renamed.
//
// The cache folder must be private: created 0700, and refused when another user owns it or when
// group or others may write to it (anyone who can write there can make kaudit load their code).
//
// What this does not stop: code that can write the cache (today, any kernel run: they run with
// the user's rights) can write a matching digest too. Item 1 of issue 21 (the sandbox) takes the
// cache out of its reach.
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kaudit::cache {

// A cache folder kaudit refuses to use; what() names it and says what to do.
struct CacheDirError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Empty when `dir` is fit to be a cache folder (a directory owned by this user, not writable by
// group or others), else why not.
std::string dir_problem(const std::filesystem::path& dir);
// Creates `root` (mode 0700, with missing parents) and `root/sub` if `sub` is given, and checks
// both with dir_problem. Returns root/sub. Throws CacheDirError; an empty root means no cache
// folder was configured (HOME and XDG_CACHE_HOME unset).
std::filesystem::path prepare_dir(const std::filesystem::path& root, std::string_view sub = {});

// Records ---------------------------------------------------------------------------------------
// Writes `body` with its digest line, atomically. False when it cannot be written (a cache that
// cannot be written only costs time).
bool write_record(const std::filesystem::path& path, std::string_view body);
// The body of an intact record; nullopt when it is missing, has no digest line, or is damaged
// (reported and removed).
std::optional<std::string> read_record(const std::filesystem::path& path);

// Binary artifacts ------------------------------------------------------------------------------
std::filesystem::path digest_path(const std::filesystem::path& file);
// Hex SHA-256 of a file's bytes; empty when it cannot be read.
std::string file_sha256(const std::filesystem::path& file);
// Moves the finished `tmp` (in the same folder) to `file` with its digest sidecar. False, with
// the reason in `error`, when that fails (`tmp` is removed).
bool seal(const std::filesystem::path& tmp, const std::filesystem::path& file, std::string* error = nullptr);
// True when `file` exists and matches its sidecar; the digest goes to `digest` if given. False
// when it is missing, has no sidecar, or is damaged (reported, and both removed).
bool verify(const std::filesystem::path& file, std::string* digest = nullptr);

// Reports a damaged artifact on stderr, once per file and process.
void report_damaged(const std::filesystem::path& file, const std::string& why);

}  // namespace kaudit::cache
