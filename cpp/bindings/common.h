// Shared pieces of the nanobind layer: array types, keep-alive, array output.
#pragma once
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "conjunct/features.h"

namespace conjunct::py {

namespace nb = nanobind;

template <class T>
using Array1 = nb::ndarray<const T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
template <class T>
using ArrayN = nb::ndarray<const T, nb::c_contig, nb::device::cpu>;
using OutArray = nb::ndarray<nb::numpy, double>;

template <class A>
auto span_of(const A& a) {
  using T = std::remove_const_t<typename A::Scalar>;
  return Span<T>(a.data(), a.size());
}

// Keeps the arrays a compiled object views alive for as long as the object.
struct KeepAlive {
  std::vector<std::shared_ptr<void>> held;
  template <class A>
  void hold(const A& a) { held.push_back(std::make_shared<A>(a)); }
};

// A numpy array of shape (rows, cols) (or (rows,) if cols == 0) owning `data`.
inline OutArray owned_array(std::vector<double>&& data, size_t rows, size_t cols) {
  auto* heap = new std::vector<double>(std::move(data));
  nb::capsule owner(heap, [](void* p) noexcept { delete static_cast<std::vector<double>*>(p); });
  if (cols == 0) {
    size_t shape[1] = {rows};
    return OutArray(heap->data(), 1, shape, owner);
  }
  size_t shape[2] = {rows, cols};
  return OutArray(heap->data(), 2, shape, owner);
}

void bind_kernel(nb::module_& m);
void bind_classify(nb::module_& m);
void bind_train(nb::module_& m);

}  // namespace conjunct::py
