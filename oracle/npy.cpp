#include "oracle/npy.h"

#include "common/files.h"

#include <ATen/ATen.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

namespace kaudit::oracle {

std::string npy_descr(at::ScalarType dtype) {
  switch (dtype) {
    case at::kFloat: return "<f4";
    case at::kDouble: return "<f8";
    case at::kHalf: return "<f2";
    case at::kBFloat16: return "|V2";
    case at::kLong: return "<i8";
    case at::kInt: return "<i4";
    case at::kShort: return "<i2";
    case at::kChar: return "|i1";
    case at::kByte: return "|u1";
    case at::kBool: return "|b1";
    default:
      throw std::invalid_argument(std::string("no .npy dtype for ") + c10::toString(dtype));
  }
}

std::string npy_bytes(const at::Tensor& tensor) {
  const at::Tensor t = tensor.to(at::kCPU).contiguous();
  std::string shape = "(";
  for (int64_t d = 0; d < t.dim(); ++d) shape += std::to_string(t.size(d)) + (t.dim() == 1 ? "," : d + 1 < t.dim() ? ", " : "");
  shape += ")";
  std::string header = "{'descr': '" + npy_descr(t.scalar_type()) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Magic (6) + version (2) + header length (2) + header, padded with spaces to a multiple of 64
  // and ended by a newline.
  const std::size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  out.append(static_cast<const char*>(t.data_ptr()), t.numel() * t.element_size());
  return out;
}

namespace {
at::ScalarType dtype_of_descr(const std::string& d) {
  static const std::pair<const char*, at::ScalarType> known[] = {
      {"<f4", at::kFloat}, {"<f8", at::kDouble}, {"<f2", at::kHalf}, {"|V2", at::kBFloat16}, {"<V2", at::kBFloat16}, {"<i8", at::kLong}, {"<i4", at::kInt},
      {"<i2", at::kShort}, {"|i1", at::kChar},  {"|u1", at::kByte}, {"|b1", at::kBool}};
  for (const auto& [name, type] : known)
    if (d == name) return type;
  throw std::invalid_argument("dtype '" + d + "' is not one kaudit reads (float16/32/64, bfloat16 as |V2, int8/16/32/64, uint8, bool)");
}
}  // namespace

at::Tensor read_npy(const std::filesystem::path& path) {
  const auto fail = [&](const std::string& why) { return std::invalid_argument(path.string() + ": " + why); };
  std::ifstream in(path, std::ios::binary);
  if (!in) throw fail("cannot read the file");
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (data.size() < 10 || data.compare(0, 6, "\x93NUMPY") != 0) throw fail("not a .npy file (no \\x93NUMPY magic)");
  const int major = static_cast<unsigned char>(data[6]);
  std::size_t header_len = 0, start = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(data[8]) | (static_cast<std::size_t>(static_cast<unsigned char>(data[9])) << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (data.size() < 12) throw fail("truncated header");
    for (int i = 3; i >= 0; --i) header_len = (header_len << 8) | static_cast<unsigned char>(data[8 + i]);
    start = 12;
  } else {
    throw fail("format version " + std::to_string(major) + " is not 1, 2 or 3");
  }
  if (data.size() < start + header_len) throw fail("truncated header");
  const std::string header = data.substr(start, header_len);
  const auto value_of = [&](const std::string& key) {
    const auto k = header.find("'" + key + "'");
    if (k == std::string::npos) throw fail("the header has no '" + key + "'");
    const auto colon = header.find(':', k);
    return header.substr(colon + 1);
  };
  std::string descr = value_of("descr");
  const auto q1 = descr.find('\''), q2 = descr.find('\'', q1 + 1);
  if (q1 == std::string::npos || q2 == std::string::npos) throw fail("a malformed descr");
  descr = descr.substr(q1 + 1, q2 - q1 - 1);
  if (value_of("fortran_order").find("False") != 0 && value_of("fortran_order").find(" False") != 0)
    throw fail("Fortran order is not supported (save a C-contiguous array)");
  const std::string shape_text = value_of("shape");
  const auto open = shape_text.find('('), close = shape_text.find(')');
  if (open == std::string::npos || close == std::string::npos) throw fail("a malformed shape");
  std::vector<int64_t> shape;
  std::stringstream ss(shape_text.substr(open + 1, close - open - 1));
  for (std::string part; std::getline(ss, part, ',');) {
    if (part.find_first_not_of(" ") == std::string::npos) continue;
    try {
      shape.push_back(std::stoll(part));
    } catch (const std::exception&) {
      throw fail("a malformed shape entry '" + part + "'");
    }
    if (shape.back() < 0) throw fail("a negative extent in the shape");
  }
  at::ScalarType dtype;
  try {
    dtype = dtype_of_descr(descr);
  } catch (const std::invalid_argument& e) {
    throw fail(e.what());
  }
  at::Tensor t = at::empty(shape, at::TensorOptions().dtype(dtype));
  const std::size_t bytes = static_cast<std::size_t>(t.numel()) * t.element_size();
  if (data.size() - start - header_len != bytes)
    throw fail("holds " + std::to_string(data.size() - start - header_len) + " data bytes, its header says " +
               std::to_string(bytes));
  std::memcpy(t.data_ptr(), data.data() + start + header_len, bytes);
  return t;
}

void write_npy(const std::filesystem::path& path, const at::Tensor& t) { write_file_atomically(path, npy_bytes(t)); }

}  // namespace kaudit::oracle
