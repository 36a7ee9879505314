#include "oracle/npy.h"

#include <ATen/ATen.h>
#include <unistd.h>

#include <fstream>
#include <stdexcept>

namespace kaudit::oracle {

std::string npy_descr(at::ScalarType dtype) {
  switch (dtype) {
    case at::kFloat: return "<f4";
    case at::kDouble: return "<f8";
    case at::kHalf: return "<f2";
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

void write_npy(const std::filesystem::path& path, const at::Tensor& t) {
  const std::string bytes = npy_bytes(t);
  const std::filesystem::path tmp = path.string() + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw std::runtime_error("cannot write " + tmp.string());
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace kaudit::oracle
