// J.DepP's input text (the CaboCha lattice) read into the bunsetsu parser's
// token buffers; the format is described beside the declaration.
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "conjunct/tasks/bunsetsu_features.h"

namespace conjunct {

void read_cabocha_tokens(const char* text, size_t size, std::vector<int64_t>& field_ptr, std::vector<int64_t>& field_end,
                         std::vector<int64_t>& bunsetsu_ptr, std::vector<int64_t>& sentence_ptr) {
  field_ptr.clear(), field_end.clear(), bunsetsu_ptr.assign(1, 0), sentence_ptr.assign(1, 0);
  // About one token line per 40 bytes: reserved once, not grown line by line.
  field_ptr.reserve(3 * (size / 32 + 1)), field_end.reserve(3 * (size / 32 + 1));
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
  auto field = [&](const char* a, const char* z) {
    field_ptr.push_back(a - text);
    field_end.push_back(z - text);
  };
  for (size_t pos = 0; pos < size;) {
    const char* line = text + pos;
    const char* nl = static_cast<const char*>(std::memchr(line, '\n', size - pos));
    const char* end = nl ? nl : text + size;
    pos = static_cast<size_t>(end - text) + 1;
    ++line_no;
    if (end > line && end[-1] == '\r') --end;
    const size_t len = static_cast<size_t>(end - line);
    if (len == 3 && line[0] == 'E' && line[1] == 'O' && line[2] == 'S') {
      close_bunsetsu();
      sentence_ptr.push_back(static_cast<int64_t>(bunsetsu_ptr.size() - 1));
      in_sentence = false;
      continue;
    }
    if (len == 0 || line[0] == '#') continue;
    in_sentence = true;
    if (line[0] == '*') {
      if (len < 2 || line[1] != ' ') fail("a bunsetsu line is '* <id> <head>D'");
      close_bunsetsu();
      in_bunsetsu = true;
      continue;
    }
    if (!in_bunsetsu) fail("a token line before the first '* <id> <head>D' line of its sentence");
    const char* tab = static_cast<const char*>(std::memchr(line, '\t', len));
    if (tab == nullptr || tab == line) fail("a token line is '<surface>\\t<features>'");
    // Fields 0..5 after the tab: the XPOS is field 3, the inflection field 5 (the rest of the line).
    const char* start[6];
    start[0] = tab + 1;
    for (int k = 1; k < 6; ++k) {
      const char* comma = static_cast<const char*>(std::memchr(start[k - 1], ',', static_cast<size_t>(end - start[k - 1])));
      if (comma == nullptr) fail("a token's features need 6 comma-separated fields (..., XPOS, ..., INFL)");
      start[k] = comma + 1;
    }
    const std::string_view infl(start[5], static_cast<size_t>(end - start[5]));
    field(line, tab);                                     // form
    if (infl == "*") field(line, tab);                    // the lemma: the form itself,
    else field(tab, tab);                                 // or empty (an inflected form)
    field(start[3], start[4] - 1);                        // XPOS
    ++n_tokens;
  }
  if (in_sentence) {
    ++line_no;
    fail("the text ends inside a sentence (no EOS line)");
  }
}

}  // namespace conjunct
