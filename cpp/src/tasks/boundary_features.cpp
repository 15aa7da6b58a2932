#include "conjunct/tasks/boundary_features.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "conjunct/scratch.h"

namespace conjunct {

namespace {
#include "char_class_table.inc"

// The direct path's per-template pointers, one set per thread.
struct DirectScratch {
  std::vector<const int32_t*> at, id;
  std::vector<int> bit;
};

constexpr char kClasses[] = "KHTNASO";  // a class n-gram's index: its classes' positions here, base 7
int class_index(char c) { return static_cast<int>(std::string_view(kClasses).find(c)); }

// Decodes UTF-8 (surrogate code points, as Python's "surrogatepass" writes them, included).
void decode(std::string_view s, std::vector<uint32_t>& cps, std::vector<uint32_t>& starts, uint32_t base) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  for (size_t i = 0; i < n;) {
    const unsigned char c = p[i];
    int len;
    uint32_t cp;
    if (c < 0x80) len = 1, cp = c;
    else if ((c & 0xE0) == 0xC0 && c >= 0xC2) len = 2, cp = c & 0x1F;
    else if ((c & 0xF0) == 0xE0) len = 3, cp = c & 0x0F;
    else if ((c & 0xF8) == 0xF0 && c <= 0xF4) len = 4, cp = c & 0x07;
    else throw std::invalid_argument("text is not UTF-8 (byte " + std::to_string(i) + ")");
    if (i + static_cast<size_t>(len) > n) throw std::invalid_argument("text is not UTF-8 (it ends inside a character)");
    for (int k = 1; k < len; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) throw std::invalid_argument("text is not UTF-8 (byte " + std::to_string(i) + ")");
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
      throw std::invalid_argument("text is not UTF-8 (an overlong or out-of-range character)");
    cps.push_back(cp);
    starts.push_back(base + static_cast<uint32_t>(i));
    i += static_cast<size_t>(len);
  }
}

// The offset a position names ("-3", "+0"), or false.
bool parse_offset(const std::string& s, int& out) {
  if (s.size() < 2 || (s[0] != '+' && s[0] != '-')) return false;
  for (size_t k = 1; k < s.size(); ++k)
    if (s[k] < '0' || s[k] > '9') return false;
  if (s.size() > 4) return false;
  out = std::atoi(s.c_str() + 1) * (s[0] == '-' ? -1 : 1);
  return true;
}
}  // namespace

char char_class(uint32_t cp) {
  if (cp == BoundaryFeaturizer::kPad) return 'O';
  const CharClassRange* r = std::upper_bound(std::begin(kCharClassRanges), std::end(kCharClassRanges), cp,
                                             [](uint32_t v, const CharClassRange& x) { return v < x.first; });
  if (r == std::begin(kCharClassRanges)) return 'S';
  --r;
  return cp <= r->last ? r->cls : 'S';
}

const CharClassRange* char_class_ranges(size_t& n) {
  n = std::size(kCharClassRanges);
  return kCharClassRanges;
}

const char* char_class_unicode() { return CONJUNCT_CHAR_CLASS_UNICODE; }

bool is_space(uint32_t cp) {
  if (cp <= 0x20) return cp == 0x20 || (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x1F);
  if (cp < 0x85) return false;
  return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
         cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

BoundaryFeaturizer::BoundaryFeaturizer(std::shared_ptr<const FeatureTables> tables, const char* words,
                                       size_t words_size, const int64_t* offsets, size_t n_words)
    : tables_(std::move(tables)) {
  const FeatureSpec& spec = tables_->spec();
  for (size_t t = 0; t < spec.n_templates(); ++t) {
    const FeatureTemplate& tp = spec.templ(t);
    const std::string where = "boundary feature template '" + tp.name + "': ";
    Compiled c{t, tp.parts.size(), {}};
    for (size_t k = 0; k < c.n_parts; ++k) {
      const SpecPart& q = tp.parts[k];
      if (q.has_fallback) throw std::invalid_argument(where + "the boundary features have no fallback values");
      const std::string& pos = spec.position(q.position);
      Part& p = c.parts[k];
      if (q.attribute == SpecPart::kFlag) {
        // The dictionary flags: "dict." + kind (L, R, I) + length (1 .. kDictLengths), or
        // "dict.M1" / "dict.M2": forward / backward longest match cuts here.
        const size_t kind = pos.size() == 7 && pos.compare(0, 5, "dict.") == 0 ? std::string_view("LRIM").find(pos[5])
                                                                                : std::string_view::npos;
        if (kind == std::string_view::npos || pos[6] < '1' || pos[6] > (kind == 3 ? '2' : '0' + kDictLengths))
          throw std::invalid_argument(where + "a flag at '" + pos + "': the boundary features' flags are the "
                                      "dictionary's, at dict.L1 .. dict.I4, dict.M1, dict.M2");
        p.source = kDict;
        p.bit = static_cast<int>(kind) * kDictLengths + (pos[6] - '1');
        uses_dict_ = true;
        uses_longest_ = uses_longest_ || kind == 3;
        continue;
      }
      const std::string& attr = spec.attribute(q.attribute);
      p.vocab = q.attribute;
      if (attr.size() == 2 && (attr[0] == 'c' || attr[0] == 't') && attr[1] >= '1' && attr[1] <= '0' + 2 * kWindow) {
        p.source = attr[0] == 'c' ? kChars : kTypes;
        p.n = attr[1] - '0';
        if (!parse_offset(pos, p.offset) || p.offset < -kWindow || p.offset + p.n > kWindow)
          throw std::invalid_argument(where + "n-gram '" + attr + "' at '" + pos + "' is not inside the window of " +
                                      std::to_string(kWindow) + " characters on each side");
        size_t slot = 0;
        while (slot < char_attrs_.size() && char_attrs_[slot].vocab != p.vocab) ++slot;
        if (slot == char_attrs_.size()) char_attrs_.push_back(CharAttr{p.source, p.n, p.vocab, {}});
        p.slot = static_cast<int>(slot);
      } else {
        const Source src = attr == "piece.left"    ? kLeft
                           : attr == "piece.right" ? kRight
                           : attr == "piece.end"   ? kPrevEnd
                           : attr == "piece.start" ? kNextStart
                           : attr == "piece.kind"  ? kKind
                           : attr == "piece.link"  ? kLink
                                                   : kChars;
        if (src == kChars) throw std::invalid_argument(where + "unknown attribute '" + attr + "'");
        const char* want = src == kPrevEnd ? "piece-1" : src == kNextStart ? "piece+1" : "gap";
        if (pos != want)
          throw std::invalid_argument(where + "attribute '" + attr + "' is read at '" + want + "', not at '" + pos + "'");
        p.source = src;
        uses_pieces_ = true;
      }
    }
    templates_.push_back(c);
  }
  if (uses_dict_ && offsets == nullptr)
    throw std::invalid_argument("the dictionary features need the model's dictionary (its known words)");
  if (offsets != nullptr) {
    if (n_words == 0 || offsets[0] != 0 || offsets[n_words - 1] != static_cast<int64_t>(words_size))
      throw std::invalid_argument("dictionary: the word offsets do not cover the words");
    // Every prefix of every word (at character boundaries), once, and whether it is a word.
    std::unordered_map<std::string_view, bool> prefixes;
    std::vector<uint32_t> cps, starts;
    for (size_t w = 0; w + 1 < n_words; ++w) {
      if (offsets[w + 1] <= offsets[w]) throw std::invalid_argument("dictionary: an empty word or offsets that decrease");
      const std::string_view word(words + offsets[w], static_cast<size_t>(offsets[w + 1] - offsets[w]));
      cps.clear();
      starts.clear();
      decode(word, cps, starts, 0);
      for (size_t n = 1; n <= cps.size(); ++n) {
        const size_t end = n == cps.size() ? word.size() : starts[n];
        bool& is_word = prefixes[word.substr(0, end)];
        is_word = is_word || n == cps.size();
      }
      dict_longest_ = std::max(dict_longest_, cps.size());
    }
    std::string blob;
    std::vector<int64_t> offs{0};
    for (const auto& [prefix, is_word] : prefixes) {
      blob.append(prefix);
      offs.push_back(static_cast<int64_t>(blob.size()));
      dict_is_word_.push_back(is_word);
    }
    dict_prefixes_ = AttributeVocab(blob.data(), blob.size(), offs.data(), offs.size() - 1);
  }
  // Single-part templates over characters or dictionary flags: their ids by code.
  direct_.resize(templates_.size());
  all_direct_ = true;
  for (const Compiled& c : templates_) {
    const Part& p = c.parts[0];
    if (c.n_parts != 1 || (p.source != kChars && p.source != kTypes && p.source != kDict)) {
      all_direct_ = false;
      continue;
    }
    direct_[c.t].assign(p.source == kDict ? 1 : tables_->vocab(static_cast<size_t>(p.vocab)).size(), -1);
  }
  for (size_t f = 0; f < tables_->size(); ++f) {
    std::vector<int32_t>& d = direct_[static_cast<size_t>(tables_->template_of(f))];
    const int32_t code = tables_->codes_of(f)[0];
    if (!d.empty() && code >= 0 && static_cast<size_t>(code) < d.size()) d[static_cast<size_t>(code)] = static_cast<int32_t>(f);
  }
  // A class n-gram has 7^n values: each one's code is looked up here, once.
  for (CharAttr& a : char_attrs_) {
    if (a.source != kTypes) continue;
    size_t count = 1;
    for (int j = 0; j < a.n; ++j) count *= 7;
    a.type_codes.resize(count);
    std::string s(static_cast<size_t>(a.n), ' ');
    for (size_t idx = 0; idx < count; ++idx) {
      size_t v = idx;
      for (int j = a.n - 1; j >= 0; --j, v /= 7) s[static_cast<size_t>(j)] = kClasses[v % 7];
      a.type_codes[idx] = tables_->vocab(static_cast<size_t>(a.vocab)).find(s);
    }
  }
}

void BoundaryFeaturizer::text(std::string_view utf8, Gaps gaps, Scratch& s, std::vector<int64_t>& positions,
                              std::vector<int64_t>& indptr, std::vector<int32_t>& ids) const {
  if (gaps == kAll && uses_pieces_)
    throw std::invalid_argument("the piece features need the gaps between non-whitespace characters");
  if (utf8.size() > UINT32_MAX - 2 * kWindow)
    throw std::invalid_argument("a text of more than 4 GB (byte offsets are 32-bit)");
  // The padded text: kWindow padding characters, the text, kWindow more.
  s.cps.clear();
  s.starts.clear();
  s.bytes.assign(kWindow, static_cast<char>(kPad));
  for (int k = 0; k < kWindow; ++k) s.cps.push_back(kPad), s.starts.push_back(static_cast<uint32_t>(k));
  decode(utf8, s.cps, s.starts, kWindow);
  s.bytes.append(utf8.data(), utf8.size());
  for (int k = 0; k < kWindow; ++k) {
    s.cps.push_back(kPad);
    s.starts.push_back(static_cast<uint32_t>(s.bytes.size()));
    s.bytes.push_back(static_cast<char>(kPad));
  }
  s.starts.push_back(static_cast<uint32_t>(s.bytes.size()));
  const size_t len = s.cps.size(), m = len - 2 * kWindow;
  if (m < 2) return;
  // Every character attribute's code at every padded position (-1 where the n-gram does not fit).
  s.codes.assign(char_attrs_.size() * len, -1);
  s.cls.resize(len);
  for (size_t q = 0; q < len; ++q) s.cls[q] = static_cast<uint8_t>(class_index(char_class(s.cps[q])));
  for (size_t a = 0; a < char_attrs_.size(); ++a) {
    const CharAttr& ca = char_attrs_[a];
    int32_t* out = s.codes.data() + a * len;
    const size_t n = static_cast<size_t>(ca.n);
    if (ca.source == kChars) {
      const AttributeVocab& v = tables_->vocab(static_cast<size_t>(ca.vocab));
      for (size_t q = 0; q + n <= len; ++q)
        out[q] = v.find(std::string_view(s.bytes.data() + s.starts[q], s.starts[q + n] - s.starts[q]));
    } else {
      for (size_t q = 0; q + n <= len; ++q) {
        size_t idx = 0;
        for (size_t j = 0; j < n; ++j) idx = idx * 7 + s.cls[q + j];
        out[q] = ca.type_codes[idx];
      }
    }
  }
  // Pieces: runs of non-whitespace characters (padded positions).
  if (uses_pieces_ || gaps == kInner) {
    s.piece_of.assign(len, -1);
    s.piece_a.clear();
    s.piece_e.clear();
    for (size_t q = kWindow; q < kWindow + m; ++q) {
      if (is_space(s.cps[q])) continue;
      if (q == kWindow || s.piece_of[q - 1] < 0) {
        s.piece_a.push_back(static_cast<int64_t>(q));
        s.piece_e.push_back(static_cast<int64_t>(q));
      }
      s.piece_of[q] = static_cast<int64_t>(s.piece_a.size()) - 1;
      s.piece_e.back() = static_cast<int64_t>(q) + 1;
    }
    s.link_a.assign(s.piece_a.size(), -2);
    s.link_e.assign(s.piece_a.size(), -2);
    s.is_link.assign(s.piece_a.size(), -1);
  }
  auto span = [&](size_t a, size_t e) {
    return std::string_view(s.bytes.data() + s.starts[a], s.starts[e] - s.starts[a]);
  };
  auto piece_code = [&](const Part& p, size_t q) -> int32_t {
    const AttributeVocab& v = tables_->vocab(static_cast<size_t>(p.vocab));
    const int64_t k = s.piece_of[q];
    const size_t a = static_cast<size_t>(s.piece_a[k]), e = static_cast<size_t>(s.piece_e[k]);
    switch (p.source) {
      case kLeft:
        if (q - a <= kPart) return v.find(span(a, q));
        s.tmp.assign("~");
        s.tmp.append(span(q - kPart, q));
        return v.find(s.tmp);
      case kRight:
        if (e - q <= kPart) return v.find(span(q, e));
        s.tmp.assign(span(q, q + kPart));
        s.tmp.push_back('~');
        return v.find(s.tmp);
      case kPrevEnd: {
        if (k == 0) return v.find("<p>");
        const size_t pa = static_cast<size_t>(s.piece_a[k - 1]), pe = static_cast<size_t>(s.piece_e[k - 1]);
        return v.find(span(std::max(pa, pe > kPart ? pe - kPart : pa), pe));
      }
      case kKind: {
        // Once per piece: searching the piece at each of its gaps made a long piece quadratic.
        if (s.is_link[k] < 0) {
          const std::string_view piece = span(a, e);
          const size_t at = piece.find('@');
          s.is_link[k] = piece.find("://") != std::string_view::npos || piece.find("www.") != std::string_view::npos ||
                         (at != std::string_view::npos && piece.find('.', at) != std::string_view::npos);
        }
        return s.is_link[k] ? v.find("link") : -1;
      }
      case kLink: {
        if (s.link_a[k] == -2) link_span(s, a, e, s.link_a[k], s.link_e[k]);  // once per piece
        const int64_t la = s.link_a[k], le = s.link_e[k], g = static_cast<int64_t>(q);
        if (la < 0) return -1;
        return g > la && g < le ? v.find("in") : g == la || g == le ? v.find("edge") : -1;
      }
      default: {
        if (static_cast<size_t>(k) + 1 == s.piece_a.size()) return v.find("</p>");
        const size_t na = static_cast<size_t>(s.piece_a[k + 1]), ne = static_cast<size_t>(s.piece_e[k + 1]);
        return v.find(span(na, std::min(ne, na + kPart)));
      }
    }
  };
  if (uses_dict_) dictionary_flags(s, m);
  if (all_direct_) {
    // Every template reads one code: its id straight from direct_, in template
    // order. Each template's codes and ids are found once per text (at[t][b] is
    // its code at boundary b), so a boundary costs a load and a test per template.
    DirectScratch& d = thread_scratch<DirectScratch>();
    const size_t T = templates_.size();
    d.at.resize(T), d.id.resize(T), d.bit.resize(T);
    for (size_t t = 0; t < T; ++t) {
      const Part& p = templates_[t].parts[0];
      d.id[t] = direct_[templates_[t].t].data();
      d.bit[t] = p.source == kDict ? p.bit : -1;
      d.at[t] = p.source == kDict ? nullptr
                                  : s.codes.data() + static_cast<size_t>(p.slot) * len +
                                        static_cast<size_t>(static_cast<int64_t>(kWindow) + p.offset);
    }
    size_t n_ids = ids.size();
    ids.resize(n_ids + (m - 1) * T);
    int32_t* out = ids.data();
    for (size_t b = 1; b < m; ++b) {
      const size_t q = b + kWindow;
      if (gaps == kInner && (is_space(s.cps[q - 1]) || is_space(s.cps[q]))) continue;
      positions.push_back(static_cast<int64_t>(b));
      const uint16_t flags = uses_dict_ ? s.dict[b] : 0;
      for (size_t t = 0; t < T; ++t) {
        const int32_t code = d.bit[t] >= 0 ? (flags >> d.bit[t] & 1) - 1 : d.at[t][b];
        if (code < 0) continue;
        const int32_t id = d.id[t][code];
        out[n_ids] = id;
        n_ids += id >= 0;
      }
      indptr.push_back(static_cast<int64_t>(n_ids));
    }
    ids.resize(n_ids);
    return;
  }
  // Every decided boundary's keys, then one look-up pass over them.
  const FeatureKeys& fk = tables_->keys();
  const size_t first_row = positions.size();
  s.keys.clear();
  std::vector<uint32_t>& ends = s.ends;
  ends.clear();
  int32_t codes[FeatureSpec::kMaxParts];
  for (size_t b = 1; b < m; ++b) {
    const size_t q = b + kWindow;  // the padded position right of the boundary
    if (gaps == kInner && (is_space(s.cps[q - 1]) || is_space(s.cps[q]))) continue;
    positions.push_back(static_cast<int64_t>(b));
    for (const Compiled& c : templates_) {
      bool ok = true;
      for (size_t k = 0; k < c.n_parts && ok; ++k) {
        const Part& p = c.parts[k];
        codes[k] = p.source == kChars || p.source == kTypes
                       ? s.codes[static_cast<size_t>(p.slot) * len + static_cast<size_t>(static_cast<int64_t>(q) + p.offset)]
                   : p.source == kDict ? (s.dict[b] >> p.bit & 1) - 1
                                       : piece_code(p, q);
        ok = codes[k] >= 0;
      }
      if (ok) s.keys.push_back(fk.key(c.t, codes));
    }
    ends.push_back(static_cast<uint32_t>(s.keys.size()));
  }
  s.found.resize(s.keys.size());
  fk.find_many(s.keys.data(), s.keys.size(), s.found.data());
  size_t r = 0;
  for (size_t row = first_row; row < positions.size(); ++row) {
    for (const size_t end = ends[row - first_row]; r < end; ++r)
      if (s.found[r] >= 0) ids.push_back(s.found[r]);
    indptr.push_back(static_cast<int64_t>(ids.size()));
  }
}

namespace {
struct LongestScratch {
  std::vector<uint32_t> from, to;
};
// The characters of a web or e-mail address: ASCII letters and digits and the
// URL punctuation but quotes and brackets, which EWT cuts off an address.
bool link_char(uint32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         (c < 128 && std::string_view("-._~:/?#@!$%&*+=,;").find(static_cast<char>(c)) != std::string_view::npos);
}
}  // namespace

void BoundaryFeaturizer::link_span(const Scratch& s, size_t a, size_t e, int64_t& la, int64_t& le) {
  // The first anchor ("://", "www.", or "@" with a "." after it), grown over
  // address characters both ways, trailing sentence punctuation left out.
  auto at = [&](size_t i, const char* lit) {
    for (size_t j = 0; lit[j]; ++j)
      if (i + j >= e || s.cps[i + j] != static_cast<uint8_t>(lit[j])) return false;
    return true;
  };
  la = le = -1;
  size_t anchor = e, dot_after = e;
  for (size_t i = e; i-- > a;) {
    if (s.cps[i] == '.') dot_after = i;
    if (at(i, "://") || at(i, "www.") || (s.cps[i] == '@' && dot_after < e)) anchor = i;
  }
  if (anchor == e) return;
  size_t x = anchor, y = anchor;
  while (x > a && link_char(s.cps[x - 1]) && s.cps[x - 1] != ':') --x;  // not over "mailto:", "Email:"
  while (y < e && link_char(s.cps[y])) ++y;
  while (y > anchor + 1 && std::u32string_view(U".,;:!?").find(static_cast<char32_t>(s.cps[y - 1])) != std::u32string_view::npos) --y;
  la = static_cast<int64_t>(x);
  le = static_cast<int64_t>(y);
}

void BoundaryFeaturizer::dictionary_flags(Scratch& s, size_t m) const {
  // From every character, the known words starting there: a walk over
  // longer strings that stops at the first that no word begins with.
  s.dict.assign(m + 1, 0);
  const uint16_t span_bits = static_cast<uint16_t>(1u << (2 * kDictLengths));
  // Per position, the longest known word starting / ending there (for the longest-match flags).
  LongestScratch& ls = thread_scratch<LongestScratch>();
  if (uses_longest_) {
    ls.from.assign(m + 1, 0);
    ls.to.assign(m + 1, 0);
  }
  for (size_t i = 0; i < m; ++i) {
    const size_t q = i + kWindow;
    const size_t most = std::min(dict_longest_, m - i);
    for (size_t n = 1; n <= most; ++n) {
      const int32_t code = dict_prefixes_.find(
          std::string_view(s.bytes.data() + s.starts[q], s.starts[q + n] - s.starts[q]));
      if (code < 0) break;
      if (!dict_is_word_[static_cast<size_t>(code)]) continue;
      const int k = static_cast<int>(std::min<size_t>(n, kDictLengths)) - 1;
      s.dict[i + n] |= static_cast<uint16_t>(1u << k);
      s.dict[i] |= static_cast<uint16_t>(1u << (kDictLengths + k));
      for (size_t b = i + 1; b < i + n; ++b) s.dict[b] |= static_cast<uint16_t>(span_bits << k);
      if (uses_longest_) {
        ls.from[i] = static_cast<uint32_t>(n);
        ls.to[i + n] = std::max(ls.to[i + n], static_cast<uint32_t>(n));
      }
    }
  }
  if (!uses_longest_) return;
  // Greedy longest-match segmentations, from the left and from the right (an
  // unknown character is a word of its own): where each cuts.
  const uint16_t forward = static_cast<uint16_t>(1u << (3 * kDictLengths)), backward = static_cast<uint16_t>(forward << 1);
  for (size_t i = std::max<size_t>(ls.from[0], 1); i < m; i += std::max<size_t>(ls.from[i], 1))
    s.dict[i] |= forward;
  for (size_t j = m - std::min<size_t>(m, std::max<size_t>(ls.to[m], 1)); j > 0;
       j -= std::min<size_t>(j, std::max<size_t>(ls.to[j], 1)))
    s.dict[j] |= backward;
}

}  // namespace conjunct
