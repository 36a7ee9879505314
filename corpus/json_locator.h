// Internal to kaudit_corpus: maps JSON pointers ("/inputs/0/shape/1") to byte offsets in the
// original text.
//
// nlohmann::json (3.11, what Debian ships) keeps no source positions, but a semantic error
// ("unknown dim 'Q'") is only useful to a person editing task.json if it names the line. After
// nlohmann has accepted the text, this small scanner walks the same text once and records where
// every object key and every value starts, so validation code can report by JSON pointer.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>

namespace kaudit::corpus::detail {

class JsonLocator {
 public:
  // `text` must outlive nothing: offsets are computed eagerly. Invalid JSON is tolerated (the
  // scan stops at the first surprise; what was seen so far stays usable).
  explicit JsonLocator(std::string_view text);

  // Offset of the member key (for object members; otherwise of the value) of `pointer`. When the
  // pointer is unknown, falls back to its closest known ancestor, finally to 0.
  size_t key_offset(const std::string& pointer) const;
  // Offset of the value of `pointer`, with the same fallback.
  size_t value_offset(const std::string& pointer) const;

  // Appends one reference token to a JSON pointer, escaping '~' and '/' (RFC 6901).
  static std::string child(const std::string& pointer, std::string_view token);
  static std::string child(const std::string& pointer, size_t index);

 private:
  struct Pos {
    size_t key = std::string_view::npos;
    size_t value = std::string_view::npos;
  };
  size_t lookup(std::string pointer, bool key) const;

  std::string_view text_;
  size_t i_ = 0;
  bool failed_ = false;
  std::unordered_map<std::string, Pos> pos_;

  void ws();
  bool parse_value(const std::string& pointer, int depth);
  bool parse_string(std::string* out);
};

}  // namespace kaudit::corpus::detail
