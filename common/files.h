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

}  // namespace kaudit
