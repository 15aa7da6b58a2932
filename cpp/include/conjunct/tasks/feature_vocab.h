// The feature strings of a model, as a hash table from the UTF-8 bytes of a
// feature key to its column: the task loops build their feature keys from
// the tokens in C++ and look them up here, so no Python object is touched per
// token. Immutable once built; lookups are thread-safe.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace conjunct {

class FeatureVocab {
 public:
  FeatureVocab() = default;
  // names: the concatenated UTF-8 strings; offsets: n + 1 byte offsets into it
  // (column k is names[offsets[k], offsets[k + 1])). Throws std::invalid_argument
  // on decreasing offsets, offsets past the blob or a string given twice.
  FeatureVocab(const char* names, size_t names_size, const int64_t* offsets, size_t n);

  // The column of key, or -1 when the model has no such feature.
  int32_t find(std::string_view key) const;
  size_t size() const { return n_; }

 private:
  static uint64_t hash(std::string_view s);
  std::string_view name(int32_t column) const {
    return std::string_view(blob_.data() + offsets_[column], static_cast<size_t>(offsets_[column + 1] - offsets_[column]));
  }
  std::string blob_;
  std::vector<int64_t> offsets_;
  std::vector<uint32_t> tags_;    // per slot: upper hash bits (0 = empty)
  std::vector<int32_t> columns_;  // per slot: the column
  uint64_t mask_ = 0;
  size_t n_ = 0;
};

// A builder of feature keys: a fixed prefix ("m.h.w=") followed by a value,
// assembled in a reused buffer and looked up in a vocabulary.
class KeyBuilder {
 public:
  explicit KeyBuilder(const FeatureVocab& vocab) : vocab_(vocab) {}
  int32_t operator()(std::string_view prefix, std::string_view value) {
    buf_.assign(prefix.data(), prefix.size());
    buf_.append(value.data(), value.size());
    return vocab_.find(buf_);
  }
  int32_t operator()(std::string_view key) const { return vocab_.find(key); }

 private:
  const FeatureVocab& vocab_;
  std::string buf_;
};

// Fields of many tokens given as one UTF-8 buffer each, the values separated
// by '\n' (a token field never holds a newline): field(k) is token k's value.
class TokenField {
 public:
  // Throws std::invalid_argument when the buffer does not hold n_tokens values.
  TokenField(const char* data, size_t size, size_t n_tokens);
  std::string_view operator[](size_t k) const {
    return std::string_view(data_ + starts_[k], static_cast<size_t>(starts_[k + 1] - starts_[k] - 1));
  }
  size_t size() const { return starts_.size() - 1; }

 private:
  const char* data_;
  std::vector<int64_t> starts_;  // start of each value; starts_[n] = size + 1
};

}  // namespace conjunct
