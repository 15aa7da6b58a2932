#include "conjunct/classify/sections.h"

namespace conjunct {

const char* dtype_name(DType t) {
  switch (t) {
    case DType::Int32: return "int32";
    case DType::Int64: return "int64";
    case DType::Float64: return "float64";
  }
  return "?";
}

size_t Array::size() const {
  size_t n = 1;
  for (size_t s : shape) n *= s;
  return n;
}

const Array& Sections::at(const std::string& name) const {
  auto it = items_.find(name);
  if (it == items_.end()) throw std::invalid_argument("missing array '" + name + "'");
  return it->second;
}

void Sections::add(const std::string& name, Array a) { items_[name] = std::move(a); }

void Sections::pass(const std::string& name, const std::string& source, const Sections& inputs) {
  Array a = inputs.at(source);
  if (a.source.empty()) a.source = source;
  add(name, std::move(a));
}

Sections Sections::prefixed(const std::string& prefix) const {
  Sections out;
  const std::string p = prefix + ".";
  for (auto it = items_.lower_bound(p); it != items_.end() && it->first.compare(0, p.size(), p) == 0; ++it)
    out.items_[it->first.substr(p.size())] = it->second;
  return out;
}

void Sections::merge(const std::string& prefix, const Sections& other) {
  for (const auto& [name, a] : other.items_) items_[prefix + "." + name] = a;
}

Sections Sections::resolved(const Sections& inputs) const {
  Sections out;
  for (const auto& [name, a] : items_) out.items_[name] = a.source.empty() ? a : inputs.at(a.source);
  return out;
}

const Meta::Value& Meta::get(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end() || std::holds_alternative<std::monostate>(it->second))
    throw std::invalid_argument("missing parameter '" + key + "'");
  return it->second;
}

bool Meta::has(const std::string& key) const {
  auto it = values_.find(key);
  return it != values_.end() && !std::holds_alternative<std::monostate>(it->second);
}

int64_t Meta::integer(const std::string& key) const {
  const Value& v = get(key);
  if (const auto* i = std::get_if<int64_t>(&v)) return *i;
  throw std::invalid_argument("parameter '" + key + "' must be an integer");
}

double Meta::real(const std::string& key) const {
  const Value& v = get(key);
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  throw std::invalid_argument("parameter '" + key + "' must be a number");
}

bool Meta::flag(const std::string& key) const {
  const Value& v = get(key);
  if (const auto* b = std::get_if<bool>(&v)) return *b;
  throw std::invalid_argument("parameter '" + key + "' must be true or false");
}

const std::string& Meta::text(const std::string& key) const {
  const Value& v = get(key);
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  throw std::invalid_argument("parameter '" + key + "' must be a string");
}

const Meta& Meta::sub(const std::string& key) const {
  const Value& v = get(key);
  if (const auto* m = std::get_if<std::shared_ptr<const Meta>>(&v)) return **m;
  throw std::invalid_argument("parameter '" + key + "' must be a set of parameters");
}

std::optional<int64_t> Meta::integer_or_none(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  return integer(key);
}

std::optional<double> Meta::real_or_none(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  return real(key);
}

}  // namespace conjunct
