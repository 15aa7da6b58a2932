// A compiled classifier's data: named flat arrays (the sections of its model
// file) and named scalar parameters (the file's meta). Compiling a model
// produces them; opening them gives the immutable classifier, which views the
// arrays without copying them (they may be memory-mapped).
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "conjunct/features.h"

namespace conjunct {

enum class DType : uint8_t { Int32, Int64, Float64 };

template <class T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<int32_t>() { return DType::Int32; }
template <>
constexpr DType dtype_of<int64_t>() { return DType::Int64; }
template <>
constexpr DType dtype_of<double>() { return DType::Float64; }

const char* dtype_name(DType t);

// One array: a view of memory owned elsewhere, storage of its own, or (in a
// compiler's output) the input array of that name passed through unchanged.
struct Array {
  DType dtype = DType::Float64;
  const void* data = nullptr;
  std::vector<size_t> shape;           // C order; {n} for 1-D arrays
  std::shared_ptr<const void> owner;   // set when the array owns its storage
  std::string source;                  // non-empty: the input array it passes through
  size_t size() const;
};

class Sections {
 public:
  bool has(const std::string& name) const { return items_.count(name) != 0; }
  const Array& at(const std::string& name) const;
  // The array as a typed span; a missing array or another dtype is a std::invalid_argument.
  template <class T>
  Span<T> span(const std::string& name) const {
    const Array& a = at(name);
    if (a.dtype != dtype_of<T>())
      throw std::invalid_argument("array '" + name + "' has dtype " + dtype_name(a.dtype) + ", expected " +
                                  dtype_name(dtype_of<T>()));
    return Span<T>(static_cast<const T*>(a.data), a.size());
  }
  // Takes ownership of v; shape defaults to {v.size()}.
  template <class T>
  void put(const std::string& name, std::vector<T>&& v, std::vector<size_t> shape = {}) {
    auto held = std::make_shared<std::vector<T>>(std::move(v));
    Array a;
    a.dtype = dtype_of<T>();
    a.data = held->data();
    a.shape = shape.empty() ? std::vector<size_t>{held->size()} : std::move(shape);
    a.owner = held;
    add(name, std::move(a));
  }
  void add(const std::string& name, Array a);
  // The output array `name` is the input array `source`, unchanged.
  void pass(const std::string& name, const std::string& source, const Sections& inputs);
  // The arrays named "prefix.*", without the prefix.
  Sections prefixed(const std::string& prefix) const;
  // Adds other's arrays as "prefix.name".
  void merge(const std::string& prefix, const Sections& other);
  // A copy whose pass-through arrays view the inputs they name.
  Sections resolved(const Sections& inputs) const;
  const std::map<std::string, Array>& items() const { return items_; }

 private:
  std::map<std::string, Array> items_;
};

// Scalar parameters: numbers, text, lists of integers and nested parameter
// sets (an fstrie keeps its base's), or none.
class Meta {
 public:
  using Value = std::variant<std::monostate, bool, int64_t, double, std::string, std::vector<int64_t>,
                             std::shared_ptr<const Meta>>;

  bool has(const std::string& key) const;  // present and not none
  int64_t integer(const std::string& key) const;
  double real(const std::string& key) const;  // an integer or a real
  bool flag(const std::string& key) const;
  const std::string& text(const std::string& key) const;
  const Meta& sub(const std::string& key) const;
  std::optional<int64_t> integer_or_none(const std::string& key) const;
  std::optional<double> real_or_none(const std::string& key) const;

  void set(const std::string& key, Value v) { values_[key] = std::move(v); }
  const std::map<std::string, Value>& values() const { return values_; }

 private:
  const Value& get(const std::string& key) const;
  std::map<std::string, Value> values_;
};

}  // namespace conjunct
