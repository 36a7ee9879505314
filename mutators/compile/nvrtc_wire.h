// Internal: the pipe protocol between compile_all() and its worker processes
// (kaudit_nvrtc_worker, nvrtc_worker_main.cpp). Not part of the public API.
//
// Every message is a frame: a 4-byte little-endian length, then that many bytes.
//   parent -> worker  config: JSON {"host_code_in_image", "extra_options"}, then the cache
//                     directory (raw bytes)
//   worker -> parent  hello:  JSON {"key": cache_key(""), "available"} (the parent checks that
//                     the worker was built with the same prelude, options and NVRTC)
//   parent -> worker  job:    JSON {"i", "name"}, then the source (raw bytes)
//   worker -> parent  result: JSON {"i", "status", "image", "diag", "log", "ms", "hit"}
// The worker exits at end of input.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "mutators/compile/nvrtc.h"

namespace kaudit::mutators::nvrtc_wire {

// Blocking; retries on EINTR. false when the other end is gone.
bool write_frame(int fd, std::string_view payload);
bool read_frame(int fd, std::string& payload);
// Moves the first complete frame of `buffer` into `payload`; false when there is none yet.
bool take_frame(std::string& buffer, std::string& payload);

std::string encode_result(std::size_t index, const CompileResult& result);
bool decode_result(std::string_view frame, std::size_t& index, CompileResult& result);

}  // namespace kaudit::mutators::nvrtc_wire
