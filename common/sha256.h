// SHA-256 (FIPS 180-4), for content-addressed cache keys and stable ids.
#pragma once
#include <string>
#include <string_view>

namespace kaudit {
std::string sha256_hex(std::string_view data);
}
