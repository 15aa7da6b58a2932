// J.DepP's input text (the CaboCha lattice) read into the bunsetsu parser's
// token buffers; the format is described beside the declaration.
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "conjunct/tasks/bunsetsu_features.h"

namespace conjunct {

void read_cabocha_tokens(const char* text, size_t size, std::string& out, std::vector<int64_t>& field_ptr,
                         std::vector<int64_t>& bunsetsu_ptr, std::vector<int64_t>& sentence_ptr) {
  out.clear(), field_ptr.assign(1, 0), bunsetsu_ptr.assign(1, 0), sentence_ptr.assign(1, 0);
  out.reserve(size);
  int64_t n_tokens = 0, line_no = 0;
  bool in_bunsetsu = false, in_sentence = false;
  auto fail = [&](const std::string& what) {
    throw std::invalid_argument("line " + std::to_string(line_no) + ": " + what);
  };
  auto close_bunsetsu = [&]() {
    if (!in_bunsetsu) return;
    if (bunsetsu_ptr.back() == n_tokens) fail("the bunsetsu before this line has no tokens");
    bunsetsu_ptr.push_back(n_tokens);
    in_bunsetsu = false;
  };
  for (size_t pos = 0; pos < size;) {
    const char* nl = static_cast<const char*>(std::memchr(text + pos, '\n', size - pos));
    const size_t end = nl ? static_cast<size_t>(nl - text) : size;
    std::string_view line(text + pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line == "EOS") {
      close_bunsetsu();
      sentence_ptr.push_back(static_cast<int64_t>(bunsetsu_ptr.size() - 1));
      in_sentence = false;
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    in_sentence = true;
    if (line[0] == '*') {
      if (line.size() < 2 || line[1] != ' ') fail("a bunsetsu line is '* <id> <head>D'");
      close_bunsetsu();
      in_bunsetsu = true;
      continue;
    }
    if (!in_bunsetsu) fail("a token line before the first '* <id> <head>D' line of its sentence");
    const size_t tab = line.find('\t');
    if (tab == std::string_view::npos || tab == 0) fail("a token line is '<surface>\\t<features>'");
    const std::string_view form = line.substr(0, tab);
    std::string_view f[6];
    size_t at = tab + 1, k = 0;
    for (; k < 6; ++k) {
      const size_t comma = k < 5 ? line.find(',', at) : std::string_view::npos;
      if (k < 5 && comma == std::string_view::npos) break;
      f[k] = line.substr(at, (comma == std::string_view::npos ? line.size() : comma) - at);
      at = comma + 1;
    }
    if (k < 6) fail("a token's features need 6 comma-separated fields (..., XPOS, ..., INFL)");
    out.append(form);
    field_ptr.push_back(static_cast<int64_t>(out.size()));
    if (f[5] == "*") out.append(form);  // the lemma: the form itself, or empty (an inflected form)
    field_ptr.push_back(static_cast<int64_t>(out.size()));
    out.append(f[3]);
    field_ptr.push_back(static_cast<int64_t>(out.size()));
    ++n_tokens;
  }
  if (in_sentence) {
    ++line_no;
    fail("the text ends inside a sentence (no EOS line)");
  }
}

}  // namespace conjunct
