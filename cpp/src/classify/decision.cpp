#include "conjunct/scratch.h"
#include "conjunct/classify/decision.h"

#include <vector>

namespace conjunct {

namespace {
struct VoteScratch {
  std::vector<int32_t> votes;
};
}  // namespace

Decision Decision::parse(const std::string& kind, size_t n_classes) {
  Decision d;
  d.n_classes = n_classes;
  if (kind == "sign") d.kind = DecisionKind::Sign;
  else if (kind == "argmax") d.kind = DecisionKind::Argmax;
  else if (kind == "ovo") d.kind = DecisionKind::Ovo;
  else throw std::invalid_argument("unknown decision rule: " + kind);
  if (n_classes < 2 || (d.kind == DecisionKind::Sign && n_classes != 2))
    throw std::invalid_argument("decision rule has a wrong number of classes");
  return d;
}

size_t Decision::n_outputs() const {
  switch (kind) {
    case DecisionKind::Sign: return 1;
    case DecisionKind::Argmax: return n_classes;
    case DecisionKind::Ovo: return n_classes * (n_classes - 1) / 2;
  }
  return 0;
}

int64_t Decision::decide(const double* m) const {
  switch (kind) {
    case DecisionKind::Sign:
      return m[0] > 0 ? 1 : 0;
    case DecisionKind::Argmax: {
      size_t best = 0;
      for (size_t o = 1; o < n_classes; ++o)
        if (m[o] > m[best]) best = o;
      return static_cast<int64_t>(best);
    }
    case DecisionKind::Ovo: {
      std::vector<int32_t>& votes = thread_scratch<VoteScratch>().votes;
      votes.assign(n_classes, 0);
      size_t p = 0;
      for (size_t i = 0; i < n_classes; ++i)
        for (size_t j = i + 1; j < n_classes; ++j, ++p) ++votes[m[p] > 0 ? i : j];
      size_t best = 0;
      for (size_t c = 1; c < n_classes; ++c)
        if (votes[c] > votes[best]) best = c;
      return static_cast<int64_t>(best);
    }
  }
  return 0;
}

int64_t best_allowed(const double* m, const Decision& d, const uint8_t* allowed) {
  if (d.kind == DecisionKind::Ovo) throw std::invalid_argument("a choice among allowed classes needs a sign or argmax rule");
  if (d.kind == DecisionKind::Sign) {
    if (allowed[0] && allowed[1]) return m[0] > 0 ? 1 : 0;
    return allowed[1] ? 1 : allowed[0] ? 0 : -1;
  }
  int64_t best = -1;
  for (size_t c = 0; c < d.n_classes; ++c)
    if (allowed[c] && (best < 0 || m[c] > m[best])) best = static_cast<int64_t>(c);
  return best;
}

int64_t only_allowed(const Decision& d, const uint8_t* allowed) {
  int64_t one = -1;
  for (size_t c = 0; c < d.n_classes; ++c) {
    if (!allowed[c]) continue;
    if (one >= 0) return -2;
    one = static_cast<int64_t>(c);
  }
  return one;
}

}  // namespace conjunct
