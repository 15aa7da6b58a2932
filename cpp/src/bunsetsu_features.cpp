#include "conjunct/tasks/bunsetsu_features.h"

#include <algorithm>
#include <stdexcept>

namespace conjunct {

namespace {
using sv = std::string_view;

// UniDic POS levels of a full XPOS ("名詞-普通名詞-一般"): level 1 and levels 1-2.
sv pos1(sv xpos) { return xpos.substr(0, xpos.find('-')); }
sv pos2(sv xpos) {
  const size_t a = xpos.find('-');
  if (a == sv::npos) return xpos;
  return xpos.substr(0, xpos.find('-', a + 1));
}
bool is_symbol(sv p) { return p == "補助記号" || p == "記号" || p == "絵文字・記号等"; }
bool is_function(sv p) { return p == "助詞" || p == "助動詞"; }

// GSD has no conjugation forms: the last character of an inflected form stands in.
sv inflection(sv form, sv lemma) {
  if (form == lemma || form.empty()) return "-";
  size_t k = form.size() - 1;
  while (k > 0 && (static_cast<unsigned char>(form[k]) & 0xC0) == 0x80) --k;
  return form.substr(k);
}

// The tail word (rightmost non-symbol) is the head word or the function word.
int ending(const BunsetsuFeaturizer::Sentence::Parts& p) { return p.tail < 0 ? 0 : (p.tail == p.func ? 1 : 2); }
constexpr const char* kEnding[3] = {"none", "f", "h"};

int balance(int32_t opens, int32_t closes) {  // open, close, none, even
  return opens > closes ? 0 : (opens < closes ? 1 : (opens == 0 ? 2 : 3));
}
constexpr const char* kBalance[4] = {"open", "close", "none", "even"};
}  // namespace

BunsetsuFeaturizer::BunsetsuFeaturizer(FeatureVocab vocab, uint32_t groups) : vocab_(std::move(vocab)), groups_(groups) {
  if (!(groups & kCore) || (groups & ~static_cast<uint32_t>(kAllGroups)))
    throw std::invalid_argument("bunsetsu feature groups: 'core' is required and only known groups are allowed");
  KeyBuilder key(vocab_);
  const char* dist[3] = {"dist=1", "dist=2-5", "dist=6+"};
  for (int d = 0; d < 3; ++d) distance_[d] = key(dist[d]);
  for (int b = 0; b < 4; ++b) {
    between_brackets_[b] = key("b.br=", kBalance[b]);
    mod_brackets_[b] = key("m.br=", kBalance[b]);
    head_brackets_[b] = key("h.br=", kBalance[b]);
  }
  for (int k = 0; k < 3; ++k) {
    ending_[0][k] = key("m.t=", kEnding[k]);
    ending_[1][k] = key("h.t=", kEnding[k]);
  }
  coord_[0] = key("coord.m-1");
  coord_[1] = key("coord.m");
  coord_[2] = key("coord.h+1");
  begin_ = key("m.pos=begin");
  end_ = key("h.pos=end");
  no_prev_ = key("m-1=NONE");
  no_next_ = key("h+1=NONE");
}

void BunsetsuFeaturizer::word(KeyBatch& key, const BunsetsuTokens& t, int64_t k, sv prefix, std::vector<int32_t>& out) const {
  char buf[16];
  const size_t n = prefix.size();
  prefix.copy(buf, n);
  auto with = [&](const char* suffix) {
    size_t m = 0;
    while (suffix[m]) buf[n + m] = suffix[m], ++m;
    return sv(buf, n + m);
  };
  if (k < 0) {
    push(key(with("=NONE"), ""), out);
    return;
  }
  const sv form = t.form(k), xpos = t.xpos(k), p1 = pos1(xpos), p2 = pos2(xpos);
  push(key(with(".w="), form), out);
  push(key(with(".p="), p1), out);
  // A finer POS level equal to the coarser one would only repeat it.
  if (p2 != p1) push(key(with(".s="), p2), out);
  if (xpos != p2) push(key(with(".x="), xpos), out);
  push(key(with(".i="), inflection(form, t.lemma(k))), out);
}

void BunsetsuFeaturizer::side(KeyBatch& key, const Sentence& s, size_t k, bool modifier, std::vector<int32_t>& out) const {
  const BunsetsuTokens& t = *s.tokens;
  const Sentence::Parts& p = s.parts[k];
  const size_t n = s.size();
  word(key, t, p.head, modifier ? "m.h" : "h.h", out);
  word(key, t, p.func, modifier ? "m.f" : "h.f", out);
  for (int64_t m = p.first; m <= p.last; ++m)
    if (is_symbol(pos1(t.xpos(m)))) push(key(modifier ? "m.sym=" : "h.sym=", t.form(m)), out);
  if (modifier && k == 0) push(begin_, out);
  if (!modifier && k == n - 1) push(end_, out);
  if (groups_ & kEdge) {
    if (modifier) {
      push(ending_[0][ending(p)], out);
      push(key("m.l.w=", t.form(p.last)), out);
    } else {
      push(key("h.0.w=", t.form(p.first)), out);
      push(key("h.0.x=", t.xpos(p.first)), out);
      push(ending_[1][ending(p)], out);
      push(key("h.l.x=", t.xpos(p.last)), out);
    }
  }
  if (groups_ & kContext) {
    if (modifier) {
      push(k > 0 ? key("m-1.l.w=", t.form(s.parts[k - 1].last)) : no_prev_, out);
    } else if (k + 1 < n) {
      const Sentence::Parts& q = s.parts[k + 1];
      push(key("h+1.0.w=", t.form(q.first)), out);
      push(key("h+1.h.w=", q.head >= 0 ? t.form(q.head) : sv("-")), out);
      push(key("h+1.l.w=", t.form(q.last)), out);
    } else {
      push(no_next_, out);
    }
  }
  if (groups_ & kParticles)
    for (int64_t m = p.first; m <= p.last; ++m)
      if (pos1(t.xpos(m)) == "助詞") push(key(modifier ? "m.pt=" : "h.pt=", t.form(m)), out);
  if (groups_ & kBrackets) push((modifier ? mod_brackets_ : head_brackets_)[balance(p.opens, p.closes)], out);
}

void BunsetsuFeaturizer::prepare(const BunsetsuTokens& t, int64_t b, int64_t e, Sentence& s) const {
  const size_t n = static_cast<size_t>(e - b);
  s.tokens = &t;
  s.parts.resize(n);
  for (size_t k = 0; k < n; ++k) {
    Sentence::Parts& p = s.parts[k];
    p.first = t.bunsetsu_ptr[b + k];
    p.last = t.bunsetsu_ptr[b + k + 1] - 1;
    p.tail = p.head = p.func = -1;
    p.opens = p.closes = 0;
    for (int64_t m = p.last; m >= p.first; --m) {
      const sv xpos = t.xpos(m), p1 = pos1(xpos);
      if (is_symbol(p1)) {
        const sv p2 = pos2(xpos);
        p.opens += p2 == "補助記号-括弧開";
        p.closes += p2 == "補助記号-括弧閉";
        continue;
      }
      if (p.tail < 0) p.tail = m;
      if (is_function(p1)) {
        if (p.func < 0) p.func = m;
      } else if (p.head < 0) {
        p.head = m;
      }
    }
    const sv fp2 = p.func >= 0 ? pos2(t.xpos(p.func)) : sv();
    p.case_particle = fp2 == "助詞-格助詞" || fp2 == "助詞-係助詞";
  }
  KeyBatch& key = s.keys;
  key.clear();
  s.ids.clear();
  s.mod.assign(1, 0);
  s.head.assign(1, 0);
  s.between.assign(1, 0);
  s.siblings.assign(1, 0);
  // Layout per bunsetsu: [mod | head | between | siblings], ranges recorded as ends.
  for (size_t k = 0; k < n; ++k) {
    const Sentence::Parts& p = s.parts[k];
    side(key, s, k, true, s.ids);
    s.mod.push_back(static_cast<int64_t>(s.ids.size()));
    side(key, s, k, false, s.ids);
    s.head.push_back(static_cast<int64_t>(s.ids.size()));
    if (p.case_particle) push(key("b.case=", t.form(p.func)), s.ids);
    for (int64_t m = p.first; m <= p.last; ++m)
      if (is_symbol(pos1(t.xpos(m)))) push(key("b.sym=", t.form(m)), s.ids);
    s.between.push_back(static_cast<int64_t>(s.ids.size()));
    if (groups_ & kSiblings)
      for (int64_t m = p.first; m <= p.last; ++m)
        if (pos1(t.xpos(m)) == "助詞") push(key("sib.pt=", t.form(m)), s.ids);
    s.siblings.push_back(static_cast<int64_t>(s.ids.size()));
  }
  // Every key of the sentence is looked up at once; then the placeholders
  // become columns and keys the model does not know leave the lists.
  const std::vector<int32_t>& columns = key.resolve(vocab_);
  int32_t* ids = s.ids.data();
  int64_t w = 0, r = 0;
  for (size_t k = 1; k <= n; ++k)
    for (std::vector<int64_t>* ends : {&s.mod, &s.head, &s.between, &s.siblings}) {
      for (const int64_t end = (*ends)[k]; r < end; ++r) {
        const int32_t v = ids[r] <= -2 ? columns[static_cast<size_t>(-2 - ids[r])] : ids[r];
        if (v >= 0) ids[w++] = v;
      }
      (*ends)[k] = w;
    }
  s.ids.resize(static_cast<size_t>(w));
}

void BunsetsuFeaturizer::pair(const Sentence& s, size_t i, size_t j, const int32_t* heads, std::vector<int32_t>& x) const {
  // Bunsetsu k's ranges: mod [siblings[k], mod[k+1]), head [mod[k+1], head[k+1]),
  // between [head[k+1], between[k+1]), siblings [between[k+1], siblings[k+1]).
  const int32_t* ids = s.ids.data();
  x.clear();
  x.insert(x.end(), ids + s.siblings[i], ids + s.mod[i + 1]);
  x.insert(x.end(), ids + s.mod[j + 1], ids + s.head[j + 1]);
  const size_t d = j - i;
  push(distance_[d == 1 ? 0 : (d <= 5 ? 1 : 2)], x);
  int32_t opens = 0, closes = 0;
  for (size_t k = i + 1; k < j; ++k) {
    x.insert(x.end(), ids + s.head[k + 1], ids + s.between[k + 1]);
    if ((groups_ & kSiblings) && heads[k] == static_cast<int32_t>(j))
      x.insert(x.end(), ids + s.between[k + 1], ids + s.siblings[k + 1]);
    opens += s.parts[k].opens;
    closes += s.parts[k].closes;
  }
  if (groups_ & kBrackets) push(between_brackets_[balance(opens, closes)], x);
  if (groups_ & kCoord) {
    const BunsetsuTokens& t = *s.tokens;
    auto same = [&](int64_t a, int64_t b) { return a >= 0 && b >= 0 && t.form(a) == t.form(b); };
    const int64_t hi = s.parts[i].head, hj = s.parts[j].head;
    if (i > 0 && same(s.parts[i - 1].head, hj)) push(coord_[0], x);
    if (same(hi, hj)) push(coord_[1], x);
    if (j + 1 < s.size() && same(s.parts[j + 1].head, hi)) push(coord_[2], x);
  }
  std::sort(x.begin(), x.end());
  x.erase(std::unique(x.begin(), x.end()), x.end());
}

}  // namespace conjunct
