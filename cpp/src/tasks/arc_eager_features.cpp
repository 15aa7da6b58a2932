#include "conjunct/tasks/arc_eager_features.h"

#include <algorithm>
#include <stdexcept>

namespace conjunct {

namespace {
using sv = std::string_view;
using F = ArcEagerFeaturizer;

constexpr const char* kAttrNames[F::kFlag] = {"form", "upos", "xpos", "deprel", "valency", "distance", "move"};
constexpr const char* kValencies[5] = {"0", "1", "2", "3", "4+"};
constexpr const char* kDistances[6] = {"1", "2", "3", "4", "5-9", "10+"};
constexpr const char* kMoves[2] = {"LA", "RA"};

// A role name: operators (h, ld, rd, ld2, rd2; applied right to left) before s<k> or b<k>.
bool parse_role(sv name, F::Role& r) {
  if (name.size() < 2) return false;
  const char base = name[name.size() - 2], digit = name[name.size() - 1];
  if ((base != 's' && base != 'b') || digit < '0' || digit > '9') return false;
  r.stack = base == 's';
  r.k = digit - '0';
  r.n_ops = 0;
  int ops[16];
  int n = 0;
  sv rest = name.substr(0, name.size() - 2);
  while (!rest.empty()) {
    int op;
    size_t len;
    if (rest.substr(0, 3) == "ld2") op = 3, len = 3;
    else if (rest.substr(0, 3) == "rd2") op = 4, len = 3;
    else if (rest.substr(0, 2) == "ld") op = 1, len = 2;
    else if (rest.substr(0, 2) == "rd") op = 2, len = 2;
    else if (rest[0] == 'h') op = 0, len = 1;
    else return false;
    if (n == 4) return false;  // at most four operators
    ops[n++] = op;
    rest.remove_prefix(len);
  }
  for (int k = 0; k < n; ++k) r.ops[k] = ops[n - 1 - k];
  r.n_ops = n;
  return true;
}

int distance_bucket(int64_t d) {
  if (d <= 4) return static_cast<int>(d < 1 ? 0 : d - 1);
  return d < 10 ? 4 : 5;
}
}  // namespace

ArcEagerFeaturizer::ArcEagerFeaturizer(std::shared_ptr<const FeatureTables> tables,
                                       const std::vector<std::string>& label_values)
    : tables_(std::move(tables)) {
  const FeatureSpec& spec = tables_->spec();
  std::vector<int> attr_of(spec.n_attributes(), -1);
  for (int k = 0; k < kTokenAttrs; ++k) token_vocab_[k] = -1;
  int32_t deprel_vocab = -1;
  for (size_t a = 0; a < spec.n_attributes(); ++a) {
    for (int k = 0; k < kFlag; ++k)
      if (spec.attribute(a) == kAttrNames[k]) attr_of[a] = k;
    if (attr_of[a] < 0) throw std::invalid_argument("arc-eager features: unknown attribute '" + spec.attribute(a) + "'");
    if (attr_of[a] < kTokenAttrs) token_vocab_[attr_of[a]] = static_cast<int32_t>(a);
    if (attr_of[a] == kDeprel) deprel_vocab = static_cast<int32_t>(a);
  }
  auto closed = [&](int attr, const char* const* values, int n, int32_t* out) {
    for (int v = 0; v < n; ++v) {
      out[v] = -1;
      for (size_t a = 0; a < spec.n_attributes(); ++a)
        if (attr_of[a] == attr) out[v] = tables_->vocab(a).find(values[v]);
    }
  };
  closed(kValency, kValencies, 5, valency_code_);
  closed(kDistance, kDistances, 6, distance_code_);
  closed(kMove, kMoves, 2, move_code_);
  label_code_.assign(label_values.size(), -1);
  if (deprel_vocab >= 0)
    for (size_t l = 0; l < label_values.size(); ++l) label_code_[l] = tables_->vocab(deprel_vocab).find(label_values[l]);

  // Positions: their kind and role slots (each distinct role is evaluated once per configuration).
  std::vector<std::string> role_names;
  auto slot_of = [&](sv name, int& slot) {
    Role r;
    if (!parse_role(name, r)) return false;
    const auto it = std::find(role_names.begin(), role_names.end(), name);
    slot = static_cast<int>(it - role_names.begin());
    if (it == role_names.end()) {
      role_names.emplace_back(name);
      roles_.push_back(r);
    }
    return true;
  };
  std::vector<Part> position(spec.n_positions());
  for (size_t p = 0; p < spec.n_positions(); ++p) {
    const sv name = spec.position(p);
    Part& q = position[p];
    q.slot[0] = q.slot[1] = -1;
    bool ok = false;
    const size_t dot = name.find('.'), dash = name.find('-');
    if (name == "arc") {
      q.kind = kArcPos, ok = true;
    } else if (dot != sv::npos) {
      const sv tail = name.substr(dot + 1);
      q.kind = tail == "root" ? kRootPos : tail == "none" ? kNonePos : tail == "ldeps" ? kLeftDeps
               : tail == "rdeps" ? kRightDeps : -1;
      ok = q.kind >= 0 && slot_of(name.substr(0, dot), q.slot[0]);
    } else if (dash != sv::npos) {
      q.kind = kPairPos;
      ok = slot_of(name.substr(0, dash), q.slot[0]) && slot_of(name.substr(dash + 1), q.slot[1]);
    } else {
      q.kind = kTokenPos;
      ok = slot_of(name, q.slot[0]);
    }
    if (!ok) throw std::invalid_argument("arc-eager features: unknown position '" + spec.position(p) + "'");
  }

  // Dense code -> id tables for one-part templates, within a budget of a few
  // cells per feature of the model (a crafted vocabulary cannot make them big).
  size_t budget = 4 * tables_->size() + (size_t{1} << 16);
  for (size_t t = 0; t < spec.n_templates(); ++t) {
    const FeatureTemplate& tp = spec.templ(t);
    const std::string where = "arc-eager feature template '" + tp.name + "': ";
    Compiled c{t, tp.parts.size(), {}, -1, 0};
    for (size_t k = 0; k < c.n_parts; ++k) {
      const SpecPart& q = tp.parts[k];
      Part& p = c.parts[k];
      p = position[q.position];
      p.attr = q.attribute == SpecPart::kFlag ? kFlag : attr_of[q.attribute];
      p.fallback = tables_->fallback(t, k);
      const bool fits = p.attr < kTokenAttrs ? p.kind == kTokenPos
                        : p.attr == kDeprel  ? (p.kind == kTokenPos || p.kind == kLeftDeps || p.kind == kRightDeps)
                        : p.attr == kValency ? (p.kind == kLeftDeps || p.kind == kRightDeps)
                        : p.attr == kDistance ? p.kind == kPairPos
                        : p.attr == kMove     ? p.kind == kArcPos
                                              : (p.kind == kRootPos || p.kind == kNonePos);
      if (!fits)
        throw std::invalid_argument(where + "attribute '" + (p.attr == kFlag ? "(flag)" : kAttrNames[p.attr]) +
                                    "' at '" + spec.position(q.position) + "' is not a feature");
      if (q.has_fallback && !(p.attr == kDeprel && p.kind == kTokenPos))
        throw std::invalid_argument(where + "only a token's label has a fallback value");
      if (p.kind == kLeftDeps || p.kind == kRightDeps) reads_dependents_ = true;
    }
    if (c.n_parts == 1) {
      const int32_t a = tp.parts[0].attribute;
      const size_t size = a == SpecPart::kFlag ? 1 : tables_->vocab(static_cast<size_t>(a)).size();
      if (size <= budget) {
        budget -= size;
        c.dense = static_cast<int64_t>(dense_.size());
        c.dense_size = static_cast<int64_t>(size);
        for (int32_t code = 0; code < static_cast<int32_t>(size); ++code)
          dense_.push_back(tables_->keys().find(tables_->keys().key(t, &code)));
      }
    }
    templates_.push_back(c);
  }
}

void ArcEagerFeaturizer::prepare(const ArcEagerTokens& t, int64_t b, int64_t e, std::vector<int32_t>& codes) const {
  codes.assign(static_cast<size_t>(e - b + 1) * kTokenAttrs, -1);
  for (int a = 0; a < kTokenAttrs; ++a) {
    if (token_vocab_[a] < 0) continue;
    const AttributeVocab& vocab = tables_->vocab(static_cast<size_t>(token_vocab_[a]));
    for (int64_t k = b; k < e; ++k) codes[static_cast<size_t>(k - b + 1) * kTokenAttrs + a] = vocab.find(t.field(k, a));
  }
}

template <class Emit>
void ArcEagerFeaturizer::each_value(const Part& p, const ArcEagerConfig& c, const int32_t* toks,
                                           const int32_t* codes, int move, Emit&& emit) const {
  auto push = [&](int32_t code) {
    if (code >= 0) emit(code);
  };
  const int32_t tok = p.slot[0] >= 0 ? toks[p.slot[0]] : -1;
  switch (p.kind) {
    case kTokenPos:
      if (p.attr < kTokenAttrs) {
        if (tok > 0) push(codes[static_cast<size_t>(tok) * kTokenAttrs + p.attr]);
      } else {  // the label of the token's arc, or the fallback (NONE) without one
        push(tok > 0 && c.labels[tok] >= 0 ? label_code_[static_cast<size_t>(c.labels[tok])] : p.fallback);
      }
      break;
    case kRootPos: if (tok == 0) emit(0); break;
    case kNonePos: if (tok < 0) emit(0); break;
    case kLeftDeps: case kRightDeps: {
      if (tok < 0) break;
      const bool left = p.kind == kLeftDeps;
      if (p.attr == kValency) {
        push(valency_code_[std::min((left ? c.n_left : c.n_right)[tok], 4)]);
        break;
      }
      const size_t L = label_code_.size();
      const uint8_t* set = (left ? c.left_set : c.right_set) + static_cast<size_t>(tok) * L;
      for (size_t l = 0; l < L; ++l)
        if (set[l]) push(label_code_[l]);
      break;
    }
    case kPairPos: {
      const int32_t other = toks[p.slot[1]];
      if (tok >= 0 && other >= 0) push(distance_code_[distance_bucket(other - tok)]);
      break;
    }
    case kArcPos: if (move >= 0) push(move_code_[move]); break;
    default: break;
  }
}

void ArcEagerFeaturizer::values(const Part& p, const ArcEagerConfig& c, const int32_t* toks, const int32_t* codes,
                                int move, std::vector<int32_t>& out) const {
  out.clear();
  each_value(p, c, toks, codes, move, [&](int32_t code) { out.push_back(code); });
}

void ArcEagerFeaturizer::features(const ArcEagerConfig& c, const int32_t* codes, int move, Scratch& s,
                                  std::vector<int32_t>& x) const {
  s.toks.resize(roles_.size());
  for (size_t r = 0; r < roles_.size(); ++r) {
    const Role& role = roles_[r];
    int32_t tok;
    if (role.stack) {
      tok = static_cast<size_t>(role.k) < c.stack_size ? c.stack[c.stack_size - 1 - static_cast<size_t>(role.k)] : -1;
    } else {
      tok = c.b + role.k < c.n1 ? c.b + role.k : -1;
    }
    for (int o = 0; o < role.n_ops && tok >= 0; ++o)
      tok = role.ops[o] == 0 ? (tok > 0 ? c.heads[tok] : -1) : c.deps[role.ops[o] - 1][tok];
    s.toks[r] = tok;
  }
  const int32_t* toks = s.toks.data();
  const FeatureKeys& keys = tables_->keys();
  for (const Compiled& t : templates_) {
    if (t.n_parts == 1) {  // its values straight to ids: no list of values in between
      each_value(t.parts[0], c, toks, codes, move, [&](int32_t code) {
        const int32_t id = find(t, code);
        if (id >= 0) x.push_back(id);
      });
      continue;
    }
    // A conjunction: every combination of its parts' values.
    bool empty = false;
    for (size_t p = 0; p < t.n_parts && !empty; ++p) {
      values(t.parts[p], c, toks, codes, move, s.values[p]);
      empty = s.values[p].empty();
    }
    if (empty) continue;
    size_t at[FeatureSpec::kMaxParts] = {0, 0, 0};
    int32_t tuple[FeatureSpec::kMaxParts];
    while (true) {
      for (size_t p = 0; p < t.n_parts; ++p) tuple[p] = s.values[p][at[p]];
      const int32_t id = keys.find(keys.key(t.t, tuple));
      if (id >= 0) x.push_back(id);
      size_t p = 0;
      while (p < t.n_parts && ++at[p] == s.values[p].size()) at[p++] = 0;
      if (p == t.n_parts) break;
    }
  }
}

}  // namespace conjunct
