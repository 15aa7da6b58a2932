// The feature strings of a model, as a hash table from the UTF-8 bytes of a
// feature key to its column: the task loops build their feature keys from
// the tokens in C++ and look them up here, so no Python object is touched per
// token. Immutable once built; lookups are thread-safe.
#pragma once
#include <cstdint>
#include <cstring>
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
  // The columns of n keys at once: key k is bytes[ends[k - 1], ends[k])
  // (ends[-1] = 0). Hashes every key first and prefetches its slot, so the
  // cache misses of many keys overlap.
  void find_many(const char* bytes, const uint32_t* ends, size_t n, int32_t* out) const;
  size_t size() const { return n_; }

 private:
  struct Slot {
    uint32_t tag;     // upper hash bits | 1 (0 = empty)
    int32_t column;
    uint32_t offset;  // the name's bytes in blob_
    uint32_t length;
  };
  static uint64_t hash(std::string_view s);
  static uint32_t tag_of(uint64_t h) { return static_cast<uint32_t>(h >> 32) | 1u; }
  bool matches(const Slot& slot, uint32_t tag, std::string_view key) const {
    return slot.tag == tag && slot.length == key.size() && std::memcmp(blob_.data() + slot.offset, key.data(), key.size()) == 0;
  }
  int32_t probe(uint64_t h, std::string_view key) const;
  std::string blob_;
  std::vector<Slot> slots_;
  uint64_t mask_ = 0;
  size_t n_ = 0;
};

// Feature keys of one sentence collected first and looked up together
// (FeatureVocab::find_many): add() returns a placeholder, -2 - k for the k-th
// key, that resolve() turns into the key's column.
class KeyBatch {
 public:
  int32_t operator()(std::string_view prefix, std::string_view value) {
    bytes_.append(prefix.data(), prefix.size());
    bytes_.append(value.data(), value.size());
    ends_.push_back(static_cast<uint32_t>(bytes_.size()));
    return -2 - static_cast<int32_t>(ends_.size() - 1);
  }
  void clear() {
    bytes_.clear();
    ends_.clear();
  }
  // Columns of the keys added so far (index k for placeholder -2 - k).
  const std::vector<int32_t>& resolve(const FeatureVocab& vocab) {
    columns_.resize(ends_.size());
    vocab.find_many(bytes_.data(), ends_.data(), ends_.size(), columns_.data());
    return columns_;
  }

 private:
  std::string bytes_;
  std::vector<uint32_t> ends_;
  std::vector<int32_t> columns_;
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
