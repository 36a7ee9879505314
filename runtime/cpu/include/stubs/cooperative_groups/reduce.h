// CPU backend: cg::reduce over a tile (cooperative_groups.h says what the model covers). Every
// thread of the tile gets the result, combined by a butterfly of shfl_xor: the GPU's own order of
// combination is not specified, so a float sum may differ from it in the last bits.
#pragma once
#include <cooperative_groups.h>

namespace cooperative_groups {

template <class T> struct plus { T operator()(const T& a, const T& b) const { return a + b; } };
template <class T> struct less { T operator()(const T& a, const T& b) const { return b < a ? b : a; } };
template <class T> struct greater { T operator()(const T& a, const T& b) const { return a < b ? b : a; } };
template <class T> struct bit_and { T operator()(const T& a, const T& b) const { return a & b; } };
template <class T> struct bit_or { T operator()(const T& a, const T& b) const { return a | b; } };
template <class T> struct bit_xor { T operator()(const T& a, const T& b) const { return a ^ b; } };

template <unsigned N, class P, class T, class Op>
inline T reduce(const thread_block_tile<N, P>& tile, T value, Op op) {
  for (unsigned offset = N / 2; offset > 0; offset /= 2) value = op(value, tile.shfl_xor(value, offset));
  return value;
}

}  // namespace cooperative_groups
