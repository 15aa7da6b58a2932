#include "conjunct/train/text_scan.h"

#include <cmath>
#include <cstdlib>
#include <string_view>
#include <unordered_map>

namespace conjunct {

namespace {

// ASCII whitespace of Python's str.split() / str.strip().
inline bool is_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f); }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

// A decimal number as Python's float() reads it and strtod agrees:
// [+-] (digits [. digits] | . digits) [(e|E) [+-] digits].
bool is_decimal(std::string_view t) {
  size_t i = 0, n = t.size();
  if (i < n && (t[i] == '+' || t[i] == '-')) ++i;
  size_t digits = 0;
  while (i < n && is_digit(t[i])) ++i, ++digits;
  if (i < n && t[i] == '.') {
    ++i;
    while (i < n && is_digit(t[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < n && (t[i] == '+' || t[i] == '-')) ++i;
    size_t e = 0;
    while (i < n && is_digit(t[i])) ++i, ++e;
    if (e == 0) return false;
  }
  return i == n;
}

// Text Python's float() might accept although is_decimal does not ("inf",
// "nan", "1_0", ...): the scanner gives up rather than guess.
bool maybe_number(std::string_view t) {
  if (t.empty()) return false;
  for (char c : t)
    if (!(is_digit(c) || c == '+' || c == '-' || c == '.' || c == '_' || std::string_view("eEiInNfFtTyYaA").find(c) !=
                                                                              std::string_view::npos))
      return false;
  return true;
}

enum class Value { Active, Inactive, GiveUp };

// A value that is a decimal number: active (1, or any finite non-zero with
// binarize), inactive (0), or not for the scanner (an error in Python).
Value binary_value(std::string_view t, bool binarize) {
  if (t == "1" || t == "1.0") return Value::Active;
  if (!is_decimal(t) || t.size() > 64) return Value::GiveUp;
  char buf[72];
  t.copy(buf, t.size());
  buf[t.size()] = '\0';
  const double v = std::strtod(buf, nullptr);
  if (!std::isfinite(v)) return Value::GiveUp;
  if (v == 0.0) return Value::Inactive;
  if (v == 1.0 || binarize) return Value::Active;
  return Value::GiveUp;
}

// Calls line(number, tokens) for every non-blank line (comment removed);
// stops and returns false as soon as line() does, or at a byte the scanner
// does not handle (a backslash or non-ASCII), setting *where.
template <typename F>
bool for_lines(const char* data, size_t size, size_t* where, F&& line) {
  std::vector<std::string_view> tokens;
  size_t number = 0, i = 0;
  while (i < size) {
    ++number;
    const size_t start = i;
    size_t cut = std::string_view::npos;
    for (; i < size && data[i] != '\n' && data[i] != '\r'; ++i) {
      const unsigned char c = static_cast<unsigned char>(data[i]);
      if (c >= 0x80 || c == '\\') {
        *where = number;
        return false;
      }
      if (c == '#' && cut == std::string_view::npos) cut = i;
    }
    const size_t stop = cut == std::string_view::npos ? i : cut;
    if (i < size) {  // the line ending: \n, \r\n or \r
      if (data[i] == '\r' && i + 1 < size && data[i + 1] == '\n') ++i;
      ++i;
    }
    tokens.clear();
    for (size_t p = start; p < stop;) {
      while (p < stop && is_space(static_cast<unsigned char>(data[p]))) ++p;
      const size_t q = p;
      while (p < stop && !is_space(static_cast<unsigned char>(data[p]))) ++p;
      if (p > q) tokens.emplace_back(data + q, p - q);
    }
    if (tokens.empty()) continue;
    if (!line(tokens)) {
      *where = number;
      return false;
    }
  }
  return true;
}

// The label token of a line (an index into out.labels); false when it has a ':'.
bool add_label(std::string_view tok, TextScan& out, std::unordered_map<std::string_view, int32_t>& ids) {
  if (tok.find(':') != std::string_view::npos) return false;
  auto it = ids.find(tok);
  if (it == ids.end()) {
    out.labels.emplace_back(tok);
    it = ids.emplace(tok, static_cast<int32_t>(out.labels.size() - 1)).first;
  }
  out.label_ids.push_back(it->second);
  return true;
}

}  // namespace

TextScan scan_svmlight(const char* data, size_t size, bool binarize) {
  TextScan out;
  std::unordered_map<std::string_view, int32_t> label_ids;
  const bool ok = for_lines(data, size, &out.line, [&](const std::vector<std::string_view>& tokens) {
    if (!add_label(tokens[0], out, label_ids)) return false;
    int64_t kept = 0;
    for (size_t k = 1; k < tokens.size(); ++k) {
      const std::string_view tok = tokens[k];
      const size_t colon = tok.find(':');
      if (colon == std::string_view::npos || colon == 0 || colon > 10) return false;
      int64_t id = 0;
      for (size_t c = 0; c < colon; ++c) {
        if (!is_digit(tok[c])) return false;
        id = id * 10 + (tok[c] - '0');
      }
      if (id > INT32_MAX - 1) return false;
      const Value v = binary_value(tok.substr(colon + 1), binarize);
      if (v == Value::GiveUp) return false;
      if (v == Value::Active) out.features.push_back(static_cast<int32_t>(id)), ++kept;
    }
    out.lengths.push_back(kept);
    return true;
  });
  out.ok = ok && !out.lengths.empty();
  return out;
}

TextScan scan_strings(const char* data, size_t size, bool binarize) {
  TextScan out;
  std::unordered_map<std::string_view, int32_t> label_ids, feature_ids;
  std::vector<int64_t> last_row;  // per vocabulary entry: the last line it was kept in (duplicates)
  int64_t row = 0;
  const bool ok = for_lines(data, size, &out.line, [&](const std::vector<std::string_view>& tokens) {
    if (!add_label(tokens[0], out, label_ids)) return false;
    int64_t kept = 0;
    for (size_t k = 1; k < tokens.size(); ++k) {
      std::string_view feat = tokens[k];
      const size_t colon = feat.rfind(':');
      if (colon != std::string_view::npos && colon > 0) {
        const std::string_view value = feat.substr(colon + 1);
        if (is_decimal(value)) {
          const Value v = binary_value(value, binarize);
          if (v == Value::GiveUp) return false;
          if (v == Value::Inactive) continue;
          feat = feat.substr(0, colon);
        } else if (maybe_number(value)) {
          return false;
        }
      }
      auto it = feature_ids.find(feat);
      if (it == feature_ids.end()) {
        out.vocabulary.emplace_back(feat);
        last_row.push_back(-1);
        it = feature_ids.emplace(feat, static_cast<int32_t>(out.vocabulary.size() - 1)).first;
      }
      int64_t& seen = last_row[static_cast<size_t>(it->second)];
      if (seen == row) continue;
      seen = row;
      out.features.push_back(it->second);
      ++kept;
    }
    out.lengths.push_back(kept);
    ++row;
    return true;
  });
  out.ok = ok && !out.lengths.empty();
  return out;
}

}  // namespace conjunct
