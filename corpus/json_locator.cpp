#include "json_locator.h"

namespace kaudit::corpus::detail {

namespace {
constexpr int kMaxDepth = 256;  // corpus files are shallow; this only guards the recursion
}

JsonLocator::JsonLocator(std::string_view text) : text_(text) {
  // nlohmann skips a UTF-8 byte order mark, so must we, to stay in step with it.
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") i_ = 3;
  parse_value("", 0);
  text_ = {};  // offsets are all we keep
}

std::string JsonLocator::child(const std::string& pointer, std::string_view token) {
  std::string out = pointer;
  out += '/';
  for (char c : token) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

std::string JsonLocator::child(const std::string& pointer, size_t index) {
  return pointer + "/" + std::to_string(index);
}

size_t JsonLocator::key_offset(const std::string& pointer) const { return lookup(pointer, true); }
size_t JsonLocator::value_offset(const std::string& pointer) const {
  return lookup(pointer, false);
}

size_t JsonLocator::lookup(std::string pointer, bool key) const {
  for (;;) {
    auto it = pos_.find(pointer);
    if (it != pos_.end()) {
      if (key && it->second.key != std::string_view::npos) return it->second.key;
      if (it->second.value != std::string_view::npos) return it->second.value;
      if (it->second.key != std::string_view::npos) return it->second.key;
    }
    if (pointer.empty()) return 0;
    pointer.erase(pointer.rfind('/'));
    key = true;  // for an ancestor, the line of its key is the most useful place
  }
}

void JsonLocator::ws() {
  while (i_ < text_.size() &&
         (text_[i_] == ' ' || text_[i_] == '\t' || text_[i_] == '\n' || text_[i_] == '\r'))
    ++i_;
}

bool JsonLocator::parse_string(std::string* out) {
  if (i_ >= text_.size() || text_[i_] != '"') return false;
  ++i_;
  while (i_ < text_.size()) {
    char c = text_[i_++];
    if (c == '"') return true;
    if (c == '\\') {
      if (i_ >= text_.size()) return false;
      char e = text_[i_++];
      if (!out) continue;
      switch (e) {
        case 'n':
          *out += '\n';
          break;
        case 't':
          *out += '\t';
          break;
        case 'r':
          *out += '\r';
          break;
        case 'b':
          *out += '\b';
          break;
        case 'f':
          *out += '\f';
          break;
        case 'u': {
          // Only ASCII escapes are decoded; other code points keep the raw text, which at worst
          // makes a key unfindable (the lookup then falls back to the parent).
          if (i_ + 4 > text_.size()) return false;
          unsigned v = 0;
          for (int k = 0; k < 4; ++k) {
            char h = text_[i_ + k];
            v <<= 4;
            if (h >= '0' && h <= '9')
              v |= unsigned(h - '0');
            else if (h >= 'a' && h <= 'f')
              v |= unsigned(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F')
              v |= unsigned(h - 'A' + 10);
            else
              return false;
          }
          if (v < 0x80)
            *out += char(v);
          else
            *out += std::string("\\u") + std::string(text_.substr(i_, 4));
          i_ += 4;
          break;
        }
        default:
          *out += e;
          break;
      }
    } else if (out) {
      *out += c;
    }
  }
  return false;
}

bool JsonLocator::parse_value(const std::string& pointer, int depth) {
  if (failed_ || depth > kMaxDepth) return failed_ = true, false;
  ws();
  if (i_ >= text_.size()) return failed_ = true, false;
  pos_[pointer].value = i_;
  char c = text_[i_];
  if (c == '{') {
    ++i_;
    ws();
    if (i_ < text_.size() && text_[i_] == '}') return ++i_, true;
    for (;;) {
      ws();
      size_t key_at = i_;
      std::string key;
      if (!parse_string(&key)) return failed_ = true, false;
      std::string member = child(pointer, key);
      pos_[member].key = key_at;
      ws();
      if (i_ >= text_.size() || text_[i_] != ':') return failed_ = true, false;
      ++i_;
      if (!parse_value(member, depth + 1)) return false;
      ws();
      if (i_ < text_.size() && text_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < text_.size() && text_[i_] == '}') return ++i_, true;
      return failed_ = true, false;
    }
  }
  if (c == '[') {
    ++i_;
    ws();
    if (i_ < text_.size() && text_[i_] == ']') return ++i_, true;
    for (size_t index = 0;; ++index) {
      if (!parse_value(child(pointer, index), depth + 1)) return false;
      ws();
      if (i_ < text_.size() && text_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < text_.size() && text_[i_] == ']') return ++i_, true;
      return failed_ = true, false;
    }
  }
  if (c == '"') return parse_string(nullptr) || (failed_ = true, false);
  // number, true, false, null: up to the next structural character or whitespace
  while (i_ < text_.size()) {
    char d = text_[i_];
    if (d == ',' || d == ']' || d == '}' || d == ' ' || d == '\t' || d == '\n' || d == '\r') break;
    ++i_;
  }
  return true;
}

}  // namespace kaudit::corpus::detail
