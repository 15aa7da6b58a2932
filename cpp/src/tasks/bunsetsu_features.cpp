#include "conjunct/tasks/bunsetsu_features.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_map>

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

// GSD has no conjugation forms: the last character of an inflected form stands in.
sv inflection(sv form, sv lemma) {
  if (form == lemma || form.empty()) return "-";
  size_t k = form.size() - 1;
  while (k > 0 && (static_cast<unsigned char>(form[k]) & 0xC0) == 0x80) --k;
  return form.substr(k);
}

// Token class bits, from the XPOS once per token.
enum : uint8_t { kSymbol = 1, kFunction = 2, kParticle = 4, kOpen = 8, kClose = 16, kCase = 32 };
uint8_t token_class(sv xpos) {
  const sv p1 = pos1(xpos), p2 = pos2(xpos);
  uint8_t c = 0;
  if (p1 == "補助記号" || p1 == "記号" || p1 == "絵文字・記号等") c |= kSymbol;
  if (p1 == "助詞") c |= kFunction | kParticle;
  if (p1 == "助動詞") c |= kFunction;
  if (p2 == "補助記号-括弧開") c |= kOpen;
  if (p2 == "補助記号-括弧閉") c |= kClose;
  if (p2 == "助詞-格助詞" || p2 == "助詞-係助詞") c |= kCase;
  return c;
}

// The positions the spec may name, the slot each fills and what it holds.
enum Role {
  // one token of a bunsetsu (or none)
  kMHead, kMFunc, kMLast, kMPrevLast, kHHead, kHFunc, kHFirst, kHLast, kHNextFirst, kHNextHead, kHNextLast,
  // a set of tokens
  kMSymbols, kMParticles, kHSymbols, kHParticles, kBCase, kBSymbols, kSibParticles,
  // a unit: the modifier, the head candidate, the span between, the pair
  kMUnit, kHUnit, kBetweenUnit, kPairUnit,
  // predicates (flag parts)
  kMHeadNone, kMFuncNone, kHHeadNone, kHFuncNone, kMBegin, kHEnd, kMPrevNone, kHNextNone, kCoordMPrev, kCoordM,
  kCoordHNext,
  kRoles
};
constexpr int kTokenRoles = kHNextLast + 1;  // the one-token roles come first
enum Kind { kToken, kSet, kUnit, kPredicate };
struct RoleInfo {
  const char* name;
  Kind kind;
  BunsetsuFeaturizer::Slot slot;
};
using F = BunsetsuFeaturizer;
constexpr RoleInfo kRoleInfo[kRoles] = {
    {"m.head", kToken, F::kMod}, {"m.func", kToken, F::kMod}, {"m.last", kToken, F::kMod},
    {"m-1.last", kToken, F::kMod}, {"h.head", kToken, F::kHead}, {"h.func", kToken, F::kHead},
    {"h.first", kToken, F::kHead}, {"h.last", kToken, F::kHead}, {"h+1.first", kToken, F::kHead},
    {"h+1.head", kToken, F::kHead}, {"h+1.last", kToken, F::kHead},
    {"m.symbols", kSet, F::kMod}, {"m.particles", kSet, F::kMod}, {"h.symbols", kSet, F::kHead},
    {"h.particles", kSet, F::kHead}, {"b.case", kSet, F::kBetween}, {"b.symbols", kSet, F::kBetween},
    {"sib.particles", kSet, F::kSiblings},
    {"m", kUnit, F::kMod}, {"h", kUnit, F::kHead}, {"between", kUnit, F::kPair}, {"pair", kUnit, F::kPair},
    {"m.head.none", kPredicate, F::kMod}, {"m.func.none", kPredicate, F::kMod}, {"h.head.none", kPredicate, F::kHead},
    {"h.func.none", kPredicate, F::kHead}, {"m.begin", kPredicate, F::kMod}, {"h.end", kPredicate, F::kHead},
    {"m-1.none", kPredicate, F::kMod}, {"h+1.none", kPredicate, F::kHead}, {"coord.m-1", kPredicate, F::kPair},
    {"coord.m", kPredicate, F::kPair}, {"coord.h+1", kPredicate, F::kPair},
};
constexpr const char* kAttrNames[F::kFlagAttr] = {"form", "pos", "subpos", "fullpos", "xpos", "infl",
                                                   "ending", "balance", "distance"};
constexpr const char* kClosedValues[3][4] = {{"none", "f", "h", nullptr},
                                             {"open", "close", "none", "even"},
                                             {"1", "2-5", "6+", nullptr}};

// Token m's value of each token attribute; has[k] false: none (a finer POS
// level equal to the coarser one would only repeat it).
void token_values(const BunsetsuTokens& t, int64_t m, sv* v, bool* has) {
  const sv form = t.form(m), xpos = t.xpos(m), p1 = pos1(xpos), p2 = pos2(xpos);
  v[F::kForm] = form, v[F::kPos] = p1, v[F::kSubpos] = p2, v[F::kFullpos] = xpos, v[F::kXpos] = xpos;
  v[F::kInfl] = inflection(form, t.lemma(m));
  for (int k = 0; k < F::kTokenAttrs; ++k) has[k] = true;
  has[F::kSubpos] = p2 != p1;
  has[F::kFullpos] = xpos != p2;
}

int ending(const F::Sentence::Parts& p) { return p.tail < 0 ? 0 : (p.tail == p.func ? 1 : 2); }
int balance(int32_t opens, int32_t closes) { return opens > closes ? 0 : (opens < closes ? 1 : (opens == 0 ? 2 : 3)); }
int distance(size_t d) { return d == 1 ? 0 : (d <= 5 ? 1 : 2); }
constexpr int64_t kFallback = -2;
}  // namespace

BunsetsuFeaturizer::BunsetsuFeaturizer(std::shared_ptr<const FeatureTables> tables) : tables_(std::move(tables)) {
  const FeatureSpec& spec = tables_->spec();
  std::vector<int> attr_of(spec.n_attributes(), -1);
  for (int k = 0; k < kTokenAttrs; ++k) token_vocab_[k] = -1;
  for (size_t a = 0; a < spec.n_attributes(); ++a) {
    for (int k = 0; k < kFlagAttr; ++k)
      if (spec.attribute(a) == kAttrNames[k]) attr_of[a] = k;
    if (attr_of[a] < 0) throw std::invalid_argument("bunsetsu features: unknown attribute '" + spec.attribute(a) + "'");
    if (attr_of[a] < kTokenAttrs) token_vocab_[attr_of[a]] = static_cast<int32_t>(a);
  }
  for (int k = kEnding; k < kFlagAttr; ++k)
    for (int v = 0; v < 4; ++v) {
      int32_t& code = closed_[k - kEnding][v];
      code = -1;
      const char* value = kClosedValues[k - kEnding][v];
      for (size_t a = 0; a < spec.n_attributes() && value; ++a)
        if (attr_of[a] == k) code = tables_->vocab(a).find(value);
    }
  // Per XPOS value the model knows, its POS levels' codes and class bits,
  // so a token costs one XPOS lookup instead of four lookups and string tests.
  if (token_vocab_[kXpos] >= 0) {
    const AttributeVocab& xv = tables_->vocab(token_vocab_[kXpos]);
    xpos_info_.resize(xv.size());
    for (size_t v = 0; v < xv.size(); ++v) {
      XposInfo& info = xpos_info_[v];
      const sv xpos = xv.value(static_cast<int32_t>(v)), p1 = pos1(xpos), p2 = pos2(xpos);
      const sv values[3] = {p1, p2, xpos};
      const bool has[3] = {true, p2 != p1, xpos != p2};
      for (int k = 0; k < 3; ++k) {
        const int32_t a = token_vocab_[kPos + k];
        info.codes[k] = a >= 0 && has[k] ? tables_->vocab(a).find(values[k]) : -1;
      }
      info.cls = token_class(xpos);
    }
  }
  std::vector<int> role_of(spec.n_positions(), -1);
  for (size_t p = 0; p < spec.n_positions(); ++p) {
    for (int r = 0; r < kRoles; ++r)
      if (spec.position(p) == kRoleInfo[r].name) role_of[p] = r;
    if (role_of[p] < 0) throw std::invalid_argument("bunsetsu features: unknown position '" + spec.position(p) + "'");
  }
  for (size_t t = 0; t < spec.n_templates(); ++t) {
    const FeatureTemplate& tp = spec.templ(t);
    const std::string where = "bunsetsu feature template '" + tp.name + "': ";
    Compiled c{t, tp.parts.size(), {}};
    for (size_t k = 0; k < c.n_parts; ++k) {
      const SpecPart& q = tp.parts[k];
      Part& p = c.parts[k];
      p.role = role_of[q.position];
      p.attr = q.attribute == SpecPart::kFlag ? kFlagAttr : attr_of[q.attribute];
      p.vocab = q.attribute;
      p.fallback = tables_->fallback(t, k);
      const Kind kind = kRoleInfo[p.role].kind;
      const bool fits = p.attr < kTokenAttrs ? (kind == kToken || kind == kSet)
                        : p.attr == kFlagAttr ? kind == kPredicate
                        : p.attr == kDistance ? p.role == kPairUnit
                        : p.attr == kEnding   ? (p.role == kMUnit || p.role == kHUnit)
                                              : (p.role == kMUnit || p.role == kHUnit || p.role == kBetweenUnit);
      if (!fits)
        throw std::invalid_argument(where + "attribute '" + kAttrNames[p.attr == kFlagAttr ? 0 : p.attr] + "' at '" +
                                    kRoleInfo[p.role].name + "' is not a feature" +
                                    (p.attr == kFlagAttr ? " (a flag needs a predicate position)" : ""));
      if (q.has_fallback && p.role != kHNextHead)
        throw std::invalid_argument(where + "only position 'h+1.head' has a fallback value");
      if (kRoleInfo[p.role].slot != kRoleInfo[c.parts[0].role].slot)
        throw std::invalid_argument(where + "its parts lie in different places (modifier, head, between, pair)");
    }
    if (c.n_parts == 1 && kRoleInfo[c.parts[0].role].kind != kSet) {  // key = base + code * step
      const int32_t zero = 0, one = 1;
      c.single = true;
      c.base = tables_->keys().key(t, &zero);
      c.step = tables_->keys().key(t, &one) - c.base;
      const int role = c.parts[0].role;
      c.fast = kRoleInfo[role].kind == kToken                                  ? 0
               : kRoleInfo[role].kind == kPredicate && role <= kHNextNone     ? 1
               : role == kMUnit || role == kHUnit                               ? 2
                                                                                : 3;
    }
    slots_[kRoleInfo[c.parts[0].role].slot].push_back(c);
  }
  for (const Compiled& c : slots_[kPair]) {
    // codes a part can take: a flag's 0, or its attribute's vocabulary
    const Part& p = c.parts[0];
    const int64_t n_codes = p.attr == kFlagAttr ? 1 : static_cast<int64_t>(tables_->vocab(p.vocab).size());
    for (int32_t code = 0; code < kPairCodes; ++code)
      pair_ids_.push_back(c.single && code < n_codes ? tables_->keys().find(c.base + code * c.step) : -1);
  }
}

// The token a one-token role names for bunsetsu k: an index, -1 (none) or kFallback.
static int64_t role_token(const BunsetsuFeaturizer::Sentence& s, int role, size_t k) {
  const BunsetsuFeaturizer::Sentence::Parts& u = s.parts[k];
  const size_t n = s.size();
  switch (role) {
    case kMHead: case kHHead: return u.head;
    case kMFunc: case kHFunc: return u.func;
    case kMLast: case kHLast: return u.last;
    case kHFirst: return u.first;
    case kMPrevLast: return k > 0 ? s.parts[k - 1].last : -1;
    case kHNextFirst: return k + 1 < n ? s.parts[k + 1].first : -1;
    case kHNextLast: return k + 1 < n ? s.parts[k + 1].last : -1;
    case kHNextHead: return k + 1 < n ? (s.parts[k + 1].head >= 0 ? s.parts[k + 1].head : kFallback) : -1;
    default: return -1;
  }
}

int32_t BunsetsuFeaturizer::scalar_code(const Sentence& s, const Part& p, size_t k, size_t i, size_t j) const {
  const size_t n = s.size();
  const Sentence::Parts& u = s.parts[k];
  switch (kRoleInfo[p.role].kind) {
    case kToken: {
      const int64_t tok = role_token(s, p.role, k);
      if (tok == kFallback) return p.fallback;
      return tok < 0 ? -1 : s.tok_codes[static_cast<size_t>(tok - s.first_token) * kTokenAttrs + p.attr];
    }
    case kUnit:
      switch (p.role) {
        case kMUnit: case kHUnit:
          return closed_[p.attr - kEnding][p.attr == kEnding ? ending(u) : balance(u.opens, u.closes)];
        case kBetweenUnit: {
          int32_t opens = 0, closes = 0;
          for (size_t m = i + 1; m < j; ++m) opens += s.parts[m].opens, closes += s.parts[m].closes;
          return closed_[kBalance - kEnding][balance(opens, closes)];
        }
        default: return closed_[kDistance - kEnding][distance(j - i)];  // kPairUnit
      }
    case kPredicate: {
      const BunsetsuTokens& t = *s.tokens;
      auto same = [&](int64_t a, int64_t b) { return a >= 0 && b >= 0 && t.form(a) == t.form(b); };
      bool holds = false;
      switch (p.role) {
        case kMHeadNone: case kHHeadNone: holds = u.head < 0; break;
        case kMFuncNone: case kHFuncNone: holds = u.func < 0; break;
        case kMBegin: holds = k == 0; break;
        case kHEnd: holds = k + 1 == n; break;
        case kMPrevNone: holds = k == 0; break;
        case kHNextNone: holds = k + 1 == n; break;
        case kCoordMPrev: holds = i > 0 && same(s.parts[i - 1].head, s.parts[j].head); break;
        case kCoordM: holds = same(s.parts[i].head, s.parts[j].head); break;
        case kCoordHNext: holds = j + 1 < n && same(s.parts[j + 1].head, s.parts[i].head); break;
        default: break;
      }
      return holds ? 0 : -1;
    }
    default: return -1;  // sets: part_codes
  }
}

void BunsetsuFeaturizer::part_codes(const Sentence& s, const Part& p, size_t k, size_t i, size_t j,
                                    std::vector<int32_t>& out) const {
  out.clear();
  if (kRoleInfo[p.role].kind != kSet) {
    const int32_t code = scalar_code(s, p, k, i, j);
    if (code >= 0) out.push_back(code);
    return;
  }
  const Sentence::Parts& u = s.parts[k];
  auto token_code = [&](int64_t tok) {
    return s.tok_codes[static_cast<size_t>(tok - s.first_token) * kTokenAttrs + p.attr];
  };
  auto push = [&](int32_t code) {
    if (code >= 0) out.push_back(code);
  };
  auto each = [&](uint8_t cls) {
    for (int64_t m = u.first; m <= u.last; ++m)
      if (s.tok_class[m - s.first_token] & cls) push(token_code(m));
  };
  switch (p.role) {
    case kMSymbols: case kHSymbols: case kBSymbols: each(kSymbol); break;
    case kMParticles: case kHParticles: case kSibParticles: each(kParticle); break;
    case kBCase: if (u.case_particle) push(token_code(u.func)); break;
    default: break;
  }
}

void BunsetsuFeaturizer::emit(Sentence& s, const Compiled& c, size_t k, size_t i, size_t j,
                              std::vector<int64_t>& keys) const {
  if (c.single) {  // most templates: at most one value, no code list
    const int32_t code = scalar_code(s, c.parts[0], k, i, j);
    if (code >= 0) keys.push_back(c.base + code * c.step);
    return;
  }
  const FeatureKeys& fk = tables_->keys();
  std::vector<int32_t>* codes = s.codes;
  for (size_t p = 0; p < c.n_parts; ++p) {
    part_codes(s, c.parts[p], k, i, j, codes[p]);
    if (codes[p].empty()) return;
  }
  int32_t tuple[FeatureSpec::kMaxParts];
  if (c.n_parts == 1) {
    for (int32_t code : codes[0]) keys.push_back(fk.key(c.t, &code));
    return;
  }
  // A conjunction: every combination of its parts' values, the last part
  // fastest (the reference path's order, which training's first-seen ids follow).
  size_t at[FeatureSpec::kMaxParts] = {0, 0, 0};
  while (true) {
    for (size_t p = 0; p < c.n_parts; ++p) tuple[p] = codes[p][at[p]];
    keys.push_back(fk.key(c.t, tuple));
    size_t p = c.n_parts;
    while (p > 0 && ++at[p - 1] == codes[p - 1].size()) at[--p] = 0;
    if (p == 0) return;
  }
}

void BunsetsuFeaturizer::prepare_keys(const BunsetsuTokens& t, int64_t b, int64_t e, Sentence& s) const {
  const size_t n = static_cast<size_t>(e - b);
  s.tokens = &t;
  s.parts.resize(n);
  const int64_t t0 = t.bunsetsu_ptr[b], t1 = t.bunsetsu_ptr[e];
  s.first_token = t0;
  // Every token's attributes once: the only string work of the sentence.
  s.tok_codes.assign(static_cast<size_t>(t1 - t0) * kTokenAttrs, -1);
  s.tok_class.resize(static_cast<size_t>(t1 - t0));
  for (int64_t m = t0; m < t1; ++m) {
    int32_t* c = s.tok_codes.data() + static_cast<size_t>(m - t0) * kTokenAttrs;
    const int32_t xc = xpos_info_.empty() ? -1 : tables_->vocab(token_vocab_[kXpos]).find(t.xpos(m));
    if (xc >= 0) {  // a known XPOS: its levels from the table, then the form and the inflection
      const XposInfo& info = xpos_info_[static_cast<size_t>(xc)];
      c[kPos] = info.codes[0], c[kSubpos] = info.codes[1], c[kFullpos] = info.codes[2], c[kXpos] = xc;
      s.tok_class[m - t0] = info.cls;
      const sv form = t.form(m);
      if (token_vocab_[kForm] >= 0) c[kForm] = tables_->vocab(token_vocab_[kForm]).find(form);
      if (token_vocab_[kInfl] >= 0) c[kInfl] = tables_->vocab(token_vocab_[kInfl]).find(inflection(form, t.lemma(m)));
      continue;
    }
    sv values[kTokenAttrs];
    bool has[kTokenAttrs];
    token_values(t, m, values, has);
    for (int k = 0; k < kTokenAttrs; ++k)
      if (token_vocab_[k] >= 0 && has[k]) c[k] = tables_->vocab(token_vocab_[k]).find(values[k]);
    s.tok_class[m - t0] = token_class(t.xpos(m));
  }
  for (size_t k = 0; k < n; ++k) {
    Sentence::Parts& p = s.parts[k];
    p.first = t.bunsetsu_ptr[b + k];
    p.last = t.bunsetsu_ptr[b + k + 1] - 1;
    p.tail = p.head = p.func = -1;
    p.opens = p.closes = 0;
    for (int64_t m = p.last; m >= p.first; --m) {
      const uint8_t cls = s.tok_class[m - t0];
      if (cls & kSymbol) {
        p.opens += (cls & kOpen) != 0;
        p.closes += (cls & kClose) != 0;
        continue;
      }
      if (p.tail < 0) p.tail = m;
      if (cls & kFunction) {
        if (p.func < 0) p.func = m;
      } else if (p.head < 0) {
        p.head = m;
      }
    }
    p.case_particle = p.func >= 0 && (s.tok_class[p.func - t0] & kCase);
  }
  // Per bunsetsu, the keys of its four lists; then every key of the sentence
  // is looked up at once and keys the model does not know leave the lists.
  s.keys.clear();
  s.ends.assign(1, 0);
  for (size_t k = 0; k < n; ++k) {
    int64_t at[kTokenRoles];  // the token of each one-token role for bunsetsu k
    for (int r = 0; r < kTokenRoles; ++r) at[r] = role_token(s, r, k);
    // The bunsetsu's predicates (0: holds, -1: not) and unit values, once,
    // as scalar_code would give them for its templates.
    const Sentence::Parts& u = s.parts[k];
    int32_t holds[kRoles];
    holds[kMHeadNone] = holds[kHHeadNone] = u.head < 0 ? 0 : -1;
    holds[kMFuncNone] = holds[kHFuncNone] = u.func < 0 ? 0 : -1;
    holds[kMBegin] = holds[kMPrevNone] = k == 0 ? 0 : -1;
    holds[kHEnd] = holds[kHNextNone] = k + 1 == n ? 0 : -1;
    const int unit[2] = {ending(u), balance(u.opens, u.closes)};  // kEnding, kBalance
    for (int slot = kMod; slot <= kSiblings; ++slot) {
      for (const Compiled& c : slots_[slot]) {
        const Part& p = c.parts[0];
        int32_t code;
        if (c.fast == 0) {
          const int64_t tok = at[p.role];
          code = tok == kFallback ? p.fallback : tok < 0 ? -1 : s.tok_codes[static_cast<size_t>(tok - t0) * kTokenAttrs + p.attr];
        } else if (c.fast == 1) {
          code = holds[p.role];
        } else if (c.fast == 2) {
          code = closed_[p.attr - kEnding][unit[p.attr - kEnding]];
        } else {
          emit(s, c, k, k, k, s.keys);
          continue;
        }
        if (code >= 0) s.keys.push_back(c.base + code * c.step);
      }
      s.ends.push_back(static_cast<int64_t>(s.keys.size()));
    }
  }
}

std::vector<AttributeVocab> BunsetsuFeaturizer::training_vocabs(const FeatureSpec& spec, const BunsetsuTokens& t,
                                                                 int64_t n_tokens) {
  const size_t n_attr = spec.n_attributes();
  std::vector<std::unordered_map<sv, int32_t>> seen(n_attr);
  std::vector<std::vector<sv>> values(n_attr);
  auto add = [&](size_t a, sv v) {
    if (seen[a].emplace(v, static_cast<int32_t>(values[a].size())).second) values[a].push_back(v);
  };
  std::vector<int> kind(n_attr, -1);
  for (size_t a = 0; a < n_attr; ++a) {
    for (int k = 0; k < kFlagAttr; ++k)
      if (spec.attribute(a) == kAttrNames[k]) kind[a] = k;
    if (kind[a] < 0) throw std::invalid_argument("bunsetsu features: unknown attribute '" + spec.attribute(a) + "'");
    if (kind[a] >= kEnding)
      for (const char* v : kClosedValues[kind[a] - kEnding])
        if (v != nullptr) add(a, v);
  }
  for (size_t tp = 0; tp < spec.n_templates(); ++tp)
    for (const SpecPart& p : spec.templ(tp).parts)
      if (p.has_fallback && p.attribute != SpecPart::kFlag) add(static_cast<size_t>(p.attribute), p.fallback);
  for (int64_t m = 0; m < n_tokens; ++m) {
    sv v[kTokenAttrs];
    bool has[kTokenAttrs];
    token_values(t, m, v, has);
    for (size_t a = 0; a < n_attr; ++a)
      if (kind[a] < kTokenAttrs && has[kind[a]]) add(a, v[kind[a]]);
  }
  std::vector<AttributeVocab> out;
  for (size_t a = 0; a < n_attr; ++a) {
    std::string blob;
    std::vector<int64_t> offsets{0};
    for (const sv v : values[a]) blob.append(v), offsets.push_back(static_cast<int64_t>(blob.size()));
    out.emplace_back(blob.data(), blob.size(), offsets.data(), values[a].size());
  }
  return out;
}

}  // namespace conjunct
