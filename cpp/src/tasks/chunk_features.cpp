#include "conjunct/tasks/chunk_features.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace conjunct {

namespace {
// The offset a position names ("-2", "+0"), or false.
bool parse_offset(const std::string& s, int& out) {
  if (s.size() < 2 || s.size() > 4 || (s[0] != '+' && s[0] != '-')) return false;
  for (size_t k = 1; k < s.size(); ++k)
    if (s[k] < '0' || s[k] > '9') return false;
  out = std::atoi(s.c_str() + 1) * (s[0] == '-' ? -1 : 1);
  return true;
}
}  // namespace

ChunkFeaturizer::ChunkFeaturizer(std::shared_ptr<const FeatureTables> tables, const std::vector<std::string>& classes)
    : tables_(std::move(tables)) {
  const FeatureSpec& spec = tables_->spec();
  for (int d = 0; d < 2; ++d) prev_[d].assign(classes.size() + 1, -1);
  for (size_t t = 0; t < spec.n_templates(); ++t) {
    const FeatureTemplate& tp = spec.templ(t);
    const std::string where = "chunk feature template '" + tp.name + "': ";
    Compiled c{t, tp.parts.size(), {}};
    bool dynamic = false;
    for (size_t k = 0; k < c.n_parts; ++k) {
      const SpecPart& q = tp.parts[k];
      if (q.attribute == SpecPart::kFlag) throw std::invalid_argument(where + "the chunk features have no flags");
      if (q.has_fallback) throw std::invalid_argument(where + "the chunk features have no fallback values");
      const std::string& attr = spec.attribute(q.attribute);
      const std::string& pos = spec.position(q.position);
      Part& p = c.parts[k];
      if (!parse_offset(pos, p.offset) || p.offset < -64 || p.offset > 64)
        throw std::invalid_argument(where + "unknown position '" + pos + "' (an offset from -64 to +64)");
      p.vocab = q.attribute;
      if (attr == "t") {
        if (c.n_parts != 1 || (p.offset != -1 && p.offset != -2))
          throw std::invalid_argument(where + "a decided tag is a template of its own, at '-1' or '-2'");
        dynamic = true;
        continue;
      }
      if (attr != "w" && attr != "p") throw std::invalid_argument(where + "unknown attribute '" + attr + "'");
      p.column = attr == "w" ? 0 : 1;
      vocab_of_[p.column] = q.attribute;
    }
    if (!dynamic) {
      static_.push_back(c);
      continue;
    }
    // One id per class (and BOS) the previous decision can be.
    const AttributeVocab& v = tables_->vocab(static_cast<size_t>(c.parts[0].vocab));
    std::vector<int32_t>& out = prev_[c.parts[0].offset == -1 ? 0 : 1];
    for (size_t k = 0; k <= classes.size(); ++k) {
      const int32_t code = v.find(k < classes.size() ? std::string_view(classes[k]) : std::string_view("BOS"));
      if (code >= 0) out[k] = tables_->keys().find(tables_->keys().key(t, &code));
    }
  }
  // Keys are unique (FeatureKeys refuses a key given twice): a code names one feature.
  std::vector<int32_t> slot(spec.n_templates(), -1);
  direct_.resize(static_.size());
  for (size_t k = 0; k < static_.size(); ++k)
    if (static_[k].n_parts == 1) {
      slot[static_[k].t] = static_cast<int32_t>(k);
      direct_[k].assign(tables_->vocab(static_cast<size_t>(static_[k].parts[0].vocab)).size(), -1);
    }
  for (size_t f = 0; f < tables_->size(); ++f) {
    const int32_t k = slot[static_cast<size_t>(tables_->template_of(f))];
    const int32_t code = tables_->codes_of(f)[0];
    if (k >= 0 && code >= 0 && static_cast<size_t>(code) < direct_[static_cast<size_t>(k)].size())
      direct_[static_cast<size_t>(k)][static_cast<size_t>(code)] = static_cast<int32_t>(f);
  }
  for (int col = 0; col < 2; ++col)
    if (vocab_of_[col] >= 0) {
      bos_[col] = tables_->vocab(static_cast<size_t>(vocab_of_[col])).find("BOS");
      eos_[col] = tables_->vocab(static_cast<size_t>(vocab_of_[col])).find("EOS");
    }
}

void ChunkFeaturizer::sentence(const ChunkTokens& t, int64_t b, int64_t e, std::vector<int64_t>& indptr,
                               std::vector<int32_t>& ids) const {
  const int64_t n = e - b;
  // Every token's word and tag codes, once: the only string work of the sentence.
  std::vector<int32_t> codes[2];
  for (int col = 0; col < 2; ++col) {
    codes[col].assign(static_cast<size_t>(n), -1);
    if (vocab_of_[col] < 0) continue;
    const AttributeVocab& v = tables_->vocab(static_cast<size_t>(vocab_of_[col]));
    for (int64_t i = 0; i < n; ++i) codes[col][static_cast<size_t>(i)] = v.find(t.field(b + i, col));
  }
  const FeatureKeys& fk = tables_->keys();
  int32_t tuple[FeatureSpec::kMaxParts];
  for (int64_t i = 0; i < n; ++i) {
    for (size_t s = 0; s < static_.size(); ++s) {
      const Compiled& c = static_[s];
      bool ok = true;
      for (size_t k = 0; k < c.n_parts && ok; ++k) {
        const Part& p = c.parts[k];
        const int64_t j = i + p.offset;
        tuple[k] = j < 0 ? bos_[p.column] : j >= n ? eos_[p.column] : codes[p.column][static_cast<size_t>(j)];
        ok = tuple[k] >= 0;
      }
      if (!ok) continue;
      const int32_t id = direct_[s].empty() ? fk.find(fk.key(c.t, tuple)) : direct_[s][static_cast<size_t>(tuple[0])];
      if (id >= 0) ids.push_back(id);
    }
    indptr.push_back(static_cast<int64_t>(ids.size()));
  }
}

}  // namespace conjunct
