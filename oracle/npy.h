// Tensors as NumPy .npy files (format version 1.0: a magic string, a Python-literal header with
// the dtype, the order and the shape, then the raw little-endian data in C order), the files an
// external checker reads (oracle/external.h). Written here, not with a library: the format is a
// page long (numpy.org, "NEP 1") and the Debian Python kaudit uses has no NumPy; the Python side
// reads them with tools/kaudit_checker.py.
#pragma once
#include <ATen/core/Tensor.h>

#include <filesystem>
#include <string>

namespace kaudit::oracle {

// The .npy dtype descriptor of a tensor dtype ("<f4", "<f8", "<f2", "<i8", "<i4", "|b1", "|u1",
// "<i2", "|i1"); throws std::invalid_argument for the others (complex). NumPy has no bfloat16: a
// bfloat16 tensor is written as "|V2", two opaque bytes per element (its bits, little-endian), so
// NumPy loads it as raw bytes instead of reading numbers into it (with the ml_dtypes package,
// `a.view(ml_dtypes.bfloat16)` gives the values); kaudit and tools/kaudit_checker.py read "|V2"
// (and "<V2") back as bfloat16.
std::string npy_descr(at::ScalarType dtype);

// The bytes of a .npy file holding `t` (made contiguous on the CPU first).
std::string npy_bytes(const at::Tensor& t);

// Writes npy_bytes(t) to `path` under a temporary name renamed into place (write_file_atomically;
// throws std::runtime_error naming the file).
void write_npy(const std::filesystem::path& path, const at::Tensor& t);

// Reads a .npy file (versions 1 to 3, C order, little-endian, the dtypes of npy_descr); throws
// std::invalid_argument naming the file and what is wrong with it.
at::Tensor read_npy(const std::filesystem::path& path);

}  // namespace kaudit::oracle
