// The attributes of a word type that the sequence taggers' features read:
// the form, lower-cased form, prefixes and suffixes, character shape, length
// and flags. Each is the string the Python reference path
// (conjunct.tagging.features) computes with str.lower, str.isupper, ...: the
// character tables are those of the Python that built the module
// (tools/unicode_props.py). Values are escaped so that a feature name names
// one tuple of values: '\' and '|' get a backslash, and so does a value equal
// to a boundary marker ("<s>", "</s>": the value of any attribute beyond the
// sentence).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace conjunct {

enum class TokenAttribute : int32_t {
  kBias, kWord, kLower,
  kPrefix1, kPrefix2, kPrefix3, kPrefix4, kPrefix5, kPrefix6,
  kSuffix1, kSuffix2, kSuffix3, kSuffix4, kSuffix5, kSuffix6,
  kShape, kLength, kHyphen, kDigit, kUpper, kTitle, kAllCaps,
  kCharTypes,  // "ctype": the word's character types (conjunct::char_class), runs collapsed
  kCount
};

// The attribute a feature spec calls name ("w", "lw", "p1", ..., "allcaps"), or -1.
int32_t token_attribute_of(std::string_view name);
const char* token_attribute_name(TokenAttribute a);

constexpr std::string_view kBeforeSentence = "<s>", kAfterSentence = "</s>";

// Python's properties of a code point (bits: 1 upper, 2 lower, 4 titlecase,
// 8 digit, 16 cased, 32 case-ignorable) and its full lower-case mapping.
uint8_t char_flags(uint32_t cp);
void append_lower(uint32_t cp, std::string& out);

// One word, decoded once; its attributes' values on demand.
class WordAttributes {
 public:
  // word: UTF-8 (lone surrogates as three-byte sequences, as Python's
  // "surrogatepass" writes them). Bytes that do not decode stand for themselves.
  void reset(std::string_view word);
  // The escaped value of attribute a, in out (replaced).
  void value(TokenAttribute a, std::string& out) const;

 private:
  void raw(TokenAttribute a, std::string& out) const;
  std::string_view word_;
  std::vector<uint32_t> cps_;
  std::vector<uint32_t> starts_;  // byte offset of each code point, then the word's size
  std::vector<uint8_t> flags_;    // char_flags of each code point (several attributes read them)
};

}  // namespace conjunct
