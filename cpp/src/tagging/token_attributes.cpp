#include "conjunct/tagging/token_attributes.h"

#include <algorithm>

#include "conjunct/tasks/boundary_features.h"

namespace conjunct {

namespace {

struct CharRun {
  uint32_t first;
  uint8_t flags;
};
struct LowerMap {
  uint32_t cp;
  uint8_t n;
  uint32_t to[3];
};
#include "unicode_props.inc"

enum : uint8_t { kUpper = 1, kLower = 2, kTitle = 4, kDigit = 8, kCased = 16, kIgnorable = 32 };

constexpr const char* kNames[] = {"bias", "w", "lw", "p1", "p2", "p3", "p4", "p5", "p6", "s1", "s2", "s3", "s4",
                                  "s5", "s6", "shape", "len", "hyphen", "digit", "upper", "title", "allcaps",
                                  "ctype"};
static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<size_t>(TokenAttribute::kCount));

void append_utf8(uint32_t c, std::string& out) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

}  // namespace

int32_t token_attribute_of(std::string_view name) {
  for (size_t a = 0; a < static_cast<size_t>(TokenAttribute::kCount); ++a)
    if (name == kNames[a]) return static_cast<int32_t>(a);
  return -1;
}

const char* token_attribute_name(TokenAttribute a) { return kNames[static_cast<size_t>(a)]; }

uint8_t char_flags(uint32_t cp) {
  if (cp < 0x80) {  // the common case, without a search
    if (cp >= 'A' && cp <= 'Z') return kUpper | kCased;
    if (cp >= 'a' && cp <= 'z') return kLower | kCased;
    if (cp >= '0' && cp <= '9') return kDigit;
    return (cp == '\'' || cp == '.' || cp == ':' || cp == '^' || cp == '`') ? kIgnorable : 0;
  }
  const CharRun* end = kRuns + sizeof(kRuns) / sizeof(kRuns[0]);
  const CharRun* r = std::upper_bound(kRuns, end, cp, [](uint32_t c, const CharRun& x) { return c < x.first; });
  return r == kRuns ? 0 : (r - 1)->flags;
}

void append_lower(uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp >= 'A' && cp <= 'Z' ? cp + 32 : cp));
    return;
  }
  const LowerMap* end = kLowerMaps + sizeof(kLowerMaps) / sizeof(kLowerMaps[0]);
  const LowerMap* m = std::lower_bound(kLowerMaps, end, cp, [](const LowerMap& x, uint32_t c) { return x.cp < c; });
  if (m == end || m->cp != cp) return append_utf8(cp, out);
  for (uint8_t k = 0; k < m->n; ++k) append_utf8(m->to[k], out);
}

void WordAttributes::reset(std::string_view word) {
  word_ = word;
  cps_.clear();
  starts_.clear();
  flags_.clear();
  const auto* p = reinterpret_cast<const unsigned char*>(word.data());
  const size_t n = word.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char b = p[i];
    size_t len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    bool ok = len > 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; ++k) ok = (p[i + k] & 0xC0) == 0x80;
    uint32_t c = b;
    if (!ok) {
      len = 1;
    } else if (len > 1) {
      c = b & (0xFF >> (len + 1));
      for (size_t k = 1; k < len; ++k) c = (c << 6) | (p[i + k] & 0x3F);
    }
    starts_.push_back(static_cast<uint32_t>(i));
    cps_.push_back(c);
    flags_.push_back(char_flags(c));
    i += len;
  }
  starts_.push_back(static_cast<uint32_t>(n));
}

void WordAttributes::raw(TokenAttribute a, std::string& out) const {
  const size_t n = cps_.size();
  auto any = [&](uint8_t bit) {
    for (uint8_t f : flags_)
      if (f & bit) return true;
    return false;
  };
  auto flag = [&](bool on) { out.push_back(on ? '1' : '0'); };
  const int32_t k = static_cast<int32_t>(a);
  if (a >= TokenAttribute::kPrefix1 && a <= TokenAttribute::kPrefix6) {
    const size_t m = std::min<size_t>(n, static_cast<size_t>(k - static_cast<int32_t>(TokenAttribute::kPrefix1) + 1));
    out.assign(word_.data(), starts_[m]);
    return;
  }
  if (a >= TokenAttribute::kSuffix1 && a <= TokenAttribute::kSuffix6) {
    const size_t m = std::min<size_t>(n, static_cast<size_t>(k - static_cast<int32_t>(TokenAttribute::kSuffix1) + 1));
    out.assign(word_.data() + starts_[n - m], word_.size() - starts_[n - m]);
    return;
  }
  switch (a) {
    case TokenAttribute::kBias:
      break;
    case TokenAttribute::kWord:
      out.assign(word_.data(), word_.size());
      break;
    case TokenAttribute::kLower:
      for (size_t i = 0; i < n; ++i) {
        const uint32_t c = cps_[i];
        if (c != 0x3A3) {
          if (c >= 0x80 || (c >= 'A' && c <= 'Z')) append_lower(c, out);
          else out.append(word_.data() + starts_[i], 1);
          continue;
        }
        // Capital sigma: final form when a cased letter precedes it and none follows
        // (case-ignorable characters skipped), as str.lower decides.
        size_t j = i;
        while (j > 0 && (flags_[j - 1] & kIgnorable)) --j;
        bool final_sigma = j > 0 && (flags_[j - 1] & kCased);
        if (final_sigma) {
          j = i + 1;
          while (j < n && (flags_[j] & kIgnorable)) ++j;
          final_sigma = j == n || !(flags_[j] & kCased);
        }
        append_utf8(final_sigma ? 0x3C2 : 0x3C3, out);
      }
      break;
    case TokenAttribute::kShape: {
      uint32_t last = 0xFFFFFFFF;
      for (size_t i = 0; i < n; ++i) {
        const uint8_t f = flags_[i];
        const uint32_t s = (f & kUpper) ? 'X' : (f & kLower) ? 'x' : (f & kDigit) ? 'd' : cps_[i];
        if (s == last) continue;
        last = s;
        if (s == cps_[i] && !(f & (kUpper | kLower | kDigit))) out.append(word_.data() + starts_[i], starts_[i + 1] - starts_[i]);
        else out.push_back(static_cast<char>(s));
      }
      break;
    }
    case TokenAttribute::kLength:
      out = std::to_string(std::min<size_t>(n, 12));
      break;
    case TokenAttribute::kHyphen:
      flag(word_.find('-') != std::string_view::npos);
      break;
    case TokenAttribute::kDigit:
      flag(any(kDigit));
      break;
    case TokenAttribute::kUpper:
      flag(any(kUpper));
      break;
    case TokenAttribute::kTitle: {  // str.istitle
      bool cased = false, previous = false, ok = true;
      for (const uint8_t f : flags_) {
        if (f & (kUpper | kTitle)) {
          if (previous) ok = false;
          previous = cased = true;
        } else if (f & kLower) {
          if (!previous) ok = false;
          previous = cased = true;
        } else {
          previous = false;
        }
        if (!ok) break;
      }
      if (n == 1) ok = cased = (flags_[0] & (kUpper | kTitle)) != 0;
      flag(ok && cased);
      break;
    }
    case TokenAttribute::kAllCaps: {  // str.isupper
      bool cased = false, ok = true;
      for (const uint8_t f : flags_) {
        if (f & (kLower | kTitle)) {
          ok = false;
          break;
        }
        if (f & kUpper) cased = true;
      }
      if (n == 1) ok = cased = (flags_[0] & kUpper) != 0;
      flag(ok && cased);
      break;
    }
    case TokenAttribute::kCharTypes:  // the segmenter's character types (K, H, T, N, A, S), runs collapsed
      for (uint32_t c : cps_) {
        const char t = char_class(c);
        if (out.empty() || out.back() != t) out.push_back(t);
      }
      break;
    default:
      break;
  }
}

void WordAttributes::value(TokenAttribute a, std::string& out) const {
  out.clear();
  raw(a, out);
  // A plain scan: find_first_of calls memchr once per character.
  bool escape = false;
  for (const char c : out) escape |= c == '\\' || c == '|';
  if (escape) {
    std::string e;
    for (char c : out) {
      if (c == '\\' || c == '|') e.push_back('\\');
      e.push_back(c);
    }
    out.swap(e);
  }
  if (out == kBeforeSentence || out == kAfterSentence) out.insert(out.begin(), '\\');
}

}  // namespace conjunct
