// Fast scanners of training data files (svmlight and opal's string format)
// for the common case: UTF-8 text, binary values written plainly. They give
// up (ok = false) on anything else -- text that is not UTF-8, a value or id
// the Python reader would parse differently, an escape giving a lone surrogate,
// or any error -- and the Python reader then reads the file, with its exact
// semantics and its messages naming file and line. So a file read here gives
// exactly what the Python reader gives.
//
// Lines end at \n, \r\n or \r (Python's text mode); a comment starts at a '#'
// no backslash escapes;
// tokens are separated by the characters Python's str.split() treats as
// whitespace (\t \n \v \f \r \x1c-\x1f, space and the Unicode spaces). Escapes
// (backslash) are read as data.py's unescape_token reads them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace conjunct {

struct TextScan {
  bool ok = false;
  size_t line = 0;                  // where the scanner gave up (1-based), when !ok
  std::vector<std::string> labels;  // distinct label tokens, in order of first appearance
  std::vector<int32_t> label_ids;   // per example, an index into labels
  std::vector<int64_t> lengths;     // per example, active features kept
  std::vector<int32_t> features;    // svmlight: ids; strings: indices into vocabulary
  std::vector<std::string> vocabulary;  // strings: distinct features, in order of first appearance
};

// svmlight / libsvm: "label id:value ...", ids in [0, 2^31 - 2]. Values 1
// and 0 (any decimal spelling) make a feature active / leave it out; with
// binarize any other finite non-zero value is active.
TextScan scan_svmlight(const char* data, size_t size, bool binarize);

// opal / TinySVM strings: "label feature feature ..."; a token whose text after
// its last ':' is a decimal number is feature:value (values as above);
// repeated features of a line are kept once, in order of first appearance.
TextScan scan_strings(const char* data, size_t size, bool binarize);

}  // namespace conjunct
