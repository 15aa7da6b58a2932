// Character-boundary features (the Japanese segmenter's and the English
// tokenizer's gaps), built from UTF-8 text through the feature engine
// (conjunct/features/). The model's spec names attributes of a character --
// "c1".."c3", "t1".."t3": the character n-gram and the character-class
// n-gram starting there -- at positions that are offsets from the boundary
// ("-3" is the third character left of it, "+0" the first right of it), and
// attributes of the whitespace-delimited piece around a gap ("piece.left",
// "piece.right" at "gap"; "piece.end" at "piece-1", "piece.start" at
// "piece+1"; "piece.kind" at "gap": "link" for a piece that holds "://",
// "www." or an "@" with a "." after it, else no feature; "piece.link" at
// "gap": "in" / "edge" for a gap inside / at either end of the piece's web or
// e-mail address, else no feature), and the
// word-dictionary flags (Neubig et al. 2011): at
// position "dict.L<k>" / "dict.R<k>" / "dict.I<k>" a known word of length k
// (k = 4: 4 or more) ends left of the boundary, starts right of it, or spans
// it; at "dict.M1" / "dict.M2" the greedy longest-match segmentation from
// the left / from the right cuts there. Per character each n-gram is looked up once in its vocabulary;
// per boundary a template reads the codes at its offsets. The Python
// reference is conjunct.tasks.segment.features, over the same spec.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "conjunct/features/attribute_vocab.h"
#include "conjunct/features/feature_tables.h"

namespace conjunct {

struct CharClassRange {
  uint32_t first, last;
  char cls;
};

// The class of a code point: K kanji, H hiragana, T katakana, N digit, A
// letter, S anything else; O for U+0002, the padding outside the text.
char char_class(uint32_t cp);
// The sorted ranges of every class but S, and the Unicode version they follow.
const CharClassRange* char_class_ranges(size_t& n);
const char* char_class_unicode();
// Python's str.isspace() of one code point.
bool is_space(uint32_t cp);

class BoundaryFeaturizer {
 public:
  static constexpr int kWindow = 3;  // characters of padding on each side
  static constexpr int kPart = 12;   // characters of a piece kept whole
  static constexpr uint32_t kPad = 0x02;
  // Which boundaries of a text are decided: every one between two
  // characters, or only those between two non-whitespace characters.
  enum Gaps { kAll, kInner };

  // Throws std::invalid_argument naming the template on an attribute or a
  // position this task does not know, or an n-gram reaching past the window.
  // words, offsets: the known words of the dictionary flags (n + 1 byte
  // offsets into words; none when the spec has no dictionary flags).
  explicit BoundaryFeaturizer(std::shared_ptr<const FeatureTables> tables, const char* words = nullptr,
                              size_t words_size = 0, const int64_t* offsets = nullptr, size_t n_words = 0);

  static constexpr int kDictLengths = 4;  // lengths 1, 2, 3 and 4 or more

  struct Scratch {
    std::vector<uint32_t> cps;      // the padded text's code points
    std::vector<uint32_t> starts;   // byte offset of each padded character, plus the end
    std::string bytes;              // the padded text
    std::vector<uint8_t> cls;       // per padded position, its class (an index into "KHTNASO")
    std::vector<int32_t> codes;     // per character attribute, per padded position
    std::vector<int64_t> piece_of;  // per padded position, its piece (-1: whitespace or padding)
    std::vector<int64_t> piece_a, piece_e;
    std::vector<int64_t> link_a, link_e;  // per piece, its address (padded positions; -2: not looked for yet, -1: none)
    std::vector<int8_t> is_link;        // per piece, whether it holds an address (-1: not looked for yet)
    std::vector<int64_t> keys;
    std::vector<uint32_t> ends;     // per decided boundary, the end of its keys
    std::vector<int32_t> found;
    std::vector<uint16_t> dict;     // per boundary b of the text, its dictionary flags (bit kind * 4 + k - 1)
    std::string tmp;
  };

  // Appends, for every decided boundary of one UTF-8 text, its position b
  // (the boundary before character b) to positions and its feature ids (in
  // template order, unknown features left out) as one row of (indptr, ids).
  // Throws std::invalid_argument on text that is not UTF-8, and on kAll with
  // a spec that has piece attributes.
  void text(std::string_view utf8, Gaps gaps, Scratch& s, std::vector<int64_t>& positions,
            std::vector<int64_t>& indptr, std::vector<int32_t>& ids) const;

  bool has_piece_features() const { return uses_pieces_; }
  const FeatureTables& tables() const { return *tables_; }

 private:
  // What a part reads: a character attribute's codes at an offset, or a piece attribute.
  enum Source { kChars, kTypes, kLeft, kRight, kPrevEnd, kNextStart, kDict, kKind, kLink };
  struct Part {
    Source source;
    int n = 0;         // n-gram length (kChars, kTypes)
    int offset = 0;    // from the boundary (kChars, kTypes)
    int slot = 0;      // row of Scratch::codes (kChars, kTypes)
    int32_t vocab = -1;
    int bit = 0;       // kDict: the flag's bit
  };
  struct Compiled {
    size_t t;
    size_t n_parts;
    Part parts[FeatureSpec::kMaxParts];
  };
  std::shared_ptr<const FeatureTables> tables_;
  std::vector<Compiled> templates_;
  // The character attributes the spec uses: (source, n, vocabulary), one row of codes each.
  struct CharAttr {
    Source source;
    int n;
    int32_t vocab;
    std::vector<int32_t> type_codes;  // kTypes: the code of every class n-gram (7^n entries)
  };
  std::vector<CharAttr> char_attrs_;
  // Every template of one character attribute or one dictionary flag: its
  // feature id per code of that part (-1: no such feature), filled from the
  // tables' features at construction, so a boundary's ids cost one read per
  // template instead of a key and a hash look-up (the same ids: keys pack
  // (template, codes) one to one).
  std::vector<std::vector<int32_t>> direct_;
  bool all_direct_ = false;
  bool uses_pieces_ = false;
  bool uses_dict_ = false;
  bool uses_longest_ = false;  // the longest-match flags (dict.M1, dict.M2)
  // The dictionary: every prefix of a known word (a walk stops at the first
  // string that is none), and whether each prefix is itself a word.
  AttributeVocab dict_prefixes_;
  std::vector<uint8_t> dict_is_word_;
  size_t dict_longest_ = 0;  // characters
  void dictionary_flags(Scratch& s, size_t m) const;
  // The address of the piece [a, e) (padded positions): [la, le), or -1 for none.
  static void link_span(const Scratch& s, size_t a, size_t e, int64_t& la, int64_t& le);
};

}  // namespace conjunct
