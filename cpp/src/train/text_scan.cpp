#include "conjunct/train/text_scan.h"

#include <cmath>
#include <cstdlib>
#include <deque>
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

// The code point of the UTF-8 sequence at data[i] (advancing i), or -1 for
// what Python's strict decoder refuses (overlong, surrogate, out of range,
// truncated).
int32_t decode(const char* data, size_t size, size_t& i) {
  const unsigned char c = static_cast<unsigned char>(data[i]);
  int n;
  int32_t cp;
  if (c < 0x80) return ++i, c;
  if (c >= 0xc2 && c <= 0xdf) n = 1, cp = c & 0x1f;
  else if (c >= 0xe0 && c <= 0xef) n = 2, cp = c & 0x0f;
  else if (c >= 0xf0 && c <= 0xf4) n = 3, cp = c & 0x07;
  else return -1;
  if (i + static_cast<size_t>(n) >= size) return -1;
  for (int k = 1; k <= n; ++k) {
    const unsigned char t = static_cast<unsigned char>(data[i + static_cast<size_t>(k)]);
    if ((t & 0xc0) != 0x80) return -1;
    cp = (cp << 6) | (t & 0x3f);
  }
  if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
    return -1;
  i += static_cast<size_t>(n) + 1;
  return cp;
}

// Whitespace of Python's str.split() beyond ASCII.
bool is_unicode_space(int32_t cp) {
  return cp == 0x85 || cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 ||
         cp == 0x2029 || cp == 0x202f || cp == 0x205f || cp == 0x3000;
}

// Calls line(tokens) for every non-blank line (comment removed; tokens as
// written, escapes included); stops and returns false as soon as line() does
// or at text that is not UTF-8, setting *where to the line.
template <typename F>
bool for_lines(const char* data, size_t size, size_t* where, F&& line) {
  std::vector<std::string_view> tokens;
  size_t number = 0, i = 0;
  while (i < size) {
    ++number;
    size_t stop = i;
    while (stop < size && data[stop] != '\n' && data[stop] != '\r') ++stop;
    const size_t next = stop < size ? stop + (data[stop] == '\r' && stop + 1 < size && data[stop + 1] == '\n' ? 2 : 1) : stop;
    // A comment starts at the first '#' not escaped by a backslash.
    size_t backslashes = 0;
    for (size_t p = i; p < stop; ++p) {
      if (data[p] == '#' && backslashes % 2 == 0) {
        stop = p;
        break;
      }
      backslashes = data[p] == '\\' ? backslashes + 1 : 0;
    }
    tokens.clear();
    size_t q = i, p = i;
    bool in_token = false;
    while (p < stop) {
      const size_t at = p;
      bool space;
      const unsigned char c = static_cast<unsigned char>(data[p]);
      if (c < 0x80) {
        space = is_space(c);
        ++p;
      } else {
        const int32_t cp = decode(data, stop, p);
        if (cp < 0) {
          *where = number;
          return false;
        }
        space = is_unicode_space(cp);
      }
      if (space && in_token) tokens.emplace_back(data + q, at - q), in_token = false;
      if (!space && !in_token) q = at, in_token = true;
    }
    if (in_token) tokens.emplace_back(data + q, stop - q);
    // The comment itself must be UTF-8 too.
    for (size_t r = stop; r < next;) {
      if (static_cast<unsigned char>(data[r]) < 0x80) {
        ++r;
      } else if (decode(data, next, r) < 0) {
        *where = number;
        return false;
      }
    }
    i = next;
    if (tokens.empty()) continue;
    if (!line(tokens)) {
      *where = number;
      return false;
    }
  }
  return true;
}

// Python's unescape_token (data.py); false for an escape that would give a
// lone surrogate (not representable as UTF-8).
bool unescape(std::string_view t, std::string& out) {
  out.clear();
  for (size_t i = 0; i < t.size();) {
    const char c = t[i];
    if (c != '\\' || i + 1 == t.size()) {
      out.push_back(c), ++i;
      continue;
    }
    const char n = t[i + 1];
    const char* plain = nullptr;
    switch (n) {
      case '\\': plain = "\\"; break;
      case 's': plain = " "; break;
      case 't': plain = "\t"; break;
      case 'n': plain = "\n"; break;
      case 'r': plain = "\r"; break;
      case '#': plain = "#"; break;
      case ':': plain = ":"; break;
      case 'e': plain = ""; break;
      default: break;
    }
    if (plain) {
      out += plain, i += 2;
      continue;
    }
    if (n == 'u' && i + 6 <= t.size()) {
      uint32_t cp = 0;
      bool hex = true;
      for (size_t k = i + 2; k < i + 6 && hex; ++k) {
        const char h = t[k];
        const int v = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
        if (v < 0) hex = false;
        cp = cp * 16 + static_cast<uint32_t>(v);
      }
      if (hex) {
        if (cp >= 0xd800 && cp <= 0xdfff) return false;
        if (cp < 0x80) {
          out.push_back(static_cast<char>(cp));
        } else if (cp < 0x800) {
          out.push_back(static_cast<char>(0xc0 | (cp >> 6)));
          out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
        } else {
          out.push_back(static_cast<char>(0xe0 | (cp >> 12)));
          out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
          out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
        }
        i += 6;
        continue;
      }
    }
    out.push_back(c), ++i;  // not an escape: kept as written
  }
  return true;
}

// Index of the last ':' no backslash escapes, or npos (Python's _last_unescaped_colon).
size_t last_unescaped_colon(std::string_view t) {
  size_t last = std::string_view::npos;
  for (size_t i = 0; i < t.size();) {
    if (t[i] == '\\') {
      i += 2;
      continue;
    }
    if (t[i] == ':') last = i;
    ++i;
  }
  return last;
}

// The label token of a line (an index into out.labels); false when it has a ':'.
bool add_label(std::string_view tok, TextScan& out, std::unordered_map<std::string_view, int32_t>& ids,
               std::string& buf) {
  if (last_unescaped_colon(tok) != std::string_view::npos) return false;
  auto it = ids.find(tok);
  if (it == ids.end()) {
    if (!unescape(tok, buf)) return false;
    out.labels.push_back(buf);
    it = ids.emplace(tok, static_cast<int32_t>(out.labels.size() - 1)).first;
  }
  out.label_ids.push_back(it->second);
  return true;
}

}  // namespace

TextScan scan_svmlight(const char* data, size_t size, bool binarize) {
  TextScan out;
  std::string buf;
  std::unordered_map<std::string_view, int32_t> label_ids;
  const bool ok = for_lines(data, size, &out.line, [&](const std::vector<std::string_view>& tokens) {
    if (!add_label(tokens[0], out, label_ids, buf)) return false;
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
  std::string buf;
  std::deque<std::string> unescaped;  // the keys of escaped features (stable addresses)
  std::unordered_map<std::string_view, int32_t> label_ids, feature_ids;
  std::vector<int64_t> last_row;  // per vocabulary entry: the last line it was kept in (duplicates)
  int64_t row = 0;
  const bool ok = for_lines(data, size, &out.line, [&](const std::vector<std::string_view>& tokens) {
    if (!add_label(tokens[0], out, label_ids, buf)) return false;
    int64_t kept = 0;
    for (size_t k = 1; k < tokens.size(); ++k) {
      std::string_view feat = tokens[k];
      const size_t colon = last_unescaped_colon(feat);
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
      // Keyed by the feature's string: two spellings ("a", "\\u0061") are one feature.
      if (feat.find('\\') != std::string_view::npos) {
        if (!unescape(feat, buf)) return false;
        auto found = feature_ids.find(buf);
        if (found == feature_ids.end()) feat = unescaped.emplace_back(buf);
        else feat = found->first;
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
