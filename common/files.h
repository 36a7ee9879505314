// Whole-file reads, shared by every module that loads a text or binary file.
//
//   if (auto text = kaudit::read_file(path)) use(*text);
//   else report("cannot read " + path.string());   // the caller words its own error
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace kaudit {

// The file's bytes, or nullopt when it cannot be opened or read.
std::optional<std::string> read_file(const std::filesystem::path& path);

// Writes `text` to `path` through a temporary file renamed over it: a reader never sees half a
// file. Throws std::runtime_error naming the file when it cannot be written.
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

// Removes `path` and everything beneath it (links are removed, not followed); false when
// something could not be removed. Use this, not std::filesystem::remove_all: PyTorch's pip
// wheels export their own copy of remove_all from libtorch.so, which the dynamic linker binds
// kaudit's calls to when kaudit links that libtorch (the CUDA backend's build), and that copy
// calls through a null pointer (seen on the H200 with PyTorch 2.11: every GPU audit died with
// SIGSEGV at its first build). This one calls the C library only.
bool remove_tree(const std::filesystem::path& path);

// The path with every link resolved (realpath(3)), or "" when it does not exist. For the same
// reason, used instead of std::filesystem::canonical on the paths the GPU build takes.
std::string real_path(const std::string& path);

}  // namespace kaudit
