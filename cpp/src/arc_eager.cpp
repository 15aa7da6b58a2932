#include "conjunct/tasks/arc_eager.h"

#include <algorithm>
#include <chrono>

#include "conjunct/scratch.h"

namespace conjunct {

namespace {
struct ArcEagerScratch {
  std::vector<int32_t> x, stack, ldep, rdep, ldep2, rdep2, nleft, nright;
  std::vector<uint8_t> lset, rset;  // [token][label value]: a dependent with this label
  std::vector<double> margins;
};

inline int distance_bucket(int64_t d) {
  if (d <= 4) return static_cast<int>(d < 1 ? 0 : d - 1);
  return d < 10 ? 4 : 5;
}

// Index of the best-scoring class among the allowed ones (first maximum);
// margins of a sign classifier are (-m, m).
template <class Allowed>
int64_t best_allowed(const double* m, size_t n_classes, bool sign, Allowed allowed) {
  int64_t best = -1;
  double best_score = 0.0;
  for (size_t c = 0; c < n_classes; ++c) {
    if (!allowed(c)) continue;
    const double score = sign ? (c == 0 ? -m[0] : m[0]) : m[c];
    if (best < 0 || score > best_score) {
      best = static_cast<int64_t>(c);
      best_score = score;
    }
  }
  return best;
}
}  // namespace

void arc_eager_parse(const ArcEagerModel& model, const ArcEagerSentenceView& s, int32_t* heads, int32_t* labels,
                     ArcEagerStats& stats, bool timing, std::vector<int64_t>* trans_ptr,
                     std::vector<int32_t>* trans_events, std::vector<int64_t>* label_ptr,
                     std::vector<int32_t>* label_events) {
  const int32_t n1 = static_cast<int32_t>(s.n_tokens());  // tokens incl. ROOT
  for (int32_t k = 0; k < n1; ++k) heads[k] = labels[k] = -1;
  if (n1 < 2) return;
  ArcEagerScratch& sc = thread_scratch<ArcEagerScratch>();
  std::vector<int32_t>&x = sc.x, &stack = sc.stack, &ldep = sc.ldep, &rdep = sc.rdep;
  stack.assign(1, 0);
  ldep.assign(static_cast<size_t>(n1), -1);
  rdep.assign(static_cast<size_t>(n1), -1);
  const bool rich = model.rich;
  const int n_roles = s.n_roles;
  const size_t L = static_cast<size_t>(model.n_label_values);
  if (rich) {
    sc.ldep2.assign(static_cast<size_t>(n1), -1);
    sc.rdep2.assign(static_cast<size_t>(n1), -1);
    sc.nleft.assign(static_cast<size_t>(n1), 0);
    sc.nright.assign(static_cast<size_t>(n1), 0);
    sc.lset.assign(static_cast<size_t>(n1) * L, 0);
    sc.rset.assign(static_cast<size_t>(n1) * L, 0);
  }
  std::vector<int32_t>&ldep2 = sc.ldep2, &rdep2 = sc.rdep2, &nleft = sc.nleft, &nright = sc.nright;
  const size_t n_out = std::max(model.transitions->n_outputs(), model.labels ? model.labels->n_outputs() : size_t{0});
  sc.margins.resize(n_out);
  double* m = sc.margins.data();
  const int32_t L1 = model.n_label_values + 1;
  bool root_done = false;

  // The configuration's vector for component k (its own column ids).
  auto assemble = [&](int k, int32_t s0, int32_t s1, int32_t b) {
    const ArcEagerIds& ids = model.ids[k];
    const CsrView& tokens = s.tokens[k];
    x.clear();
    auto add_role = [&](int32_t token, int role) {
      if (token < 0) {
        if (ids.none_ids[role] >= 0) x.push_back(ids.none_ids[role]);
        return;
      }
      for (int32_t c : tokens.row(static_cast<size_t>(token) * n_roles + role)) x.push_back(c);
    };
    auto add_label = [&](int lrole, int32_t token) {
      const int32_t value = token > 0 && labels[token] >= 0 ? labels[token] : model.n_label_values;
      const int32_t c = ids.label_feature[static_cast<size_t>(lrole) * L1 + value];
      if (c >= 0) x.push_back(c);
    };
    add_role(s0, kS0);
    add_role(s1, kS1);
    add_role(b, kB0);
    add_role(b + 1 < n1 ? b + 1 : -1, kB1);
    add_role(b + 2 < n1 ? b + 2 : -1, kB2);
    add_role(b + 3 < n1 ? b + 3 : -1, kB3);
    add_role(s0 > 0 ? heads[s0] : -1, kHS0);
    add_label(kLS0, s0);
    add_label(kLLdS0, ldep[static_cast<size_t>(s0)]);
    add_label(kLRdS0, rdep[static_cast<size_t>(s0)]);
    add_label(kLLdB0, ldep[static_cast<size_t>(b)]);
    const int32_t dc = ids.distance[distance_bucket(b - s0)];
    if (dc >= 0) x.push_back(dc);
    if (!rich) return;
    // The same order as ConfigurationFeatures.features (the classifier sorts anyway).
    const int32_t hs0 = s0 > 0 ? heads[s0] : -1;
    add_role(ldep[static_cast<size_t>(s0)], kLdS0);
    add_role(rdep[static_cast<size_t>(s0)], kRdS0);
    add_role(ldep[static_cast<size_t>(b)], kLdB0);
    add_role(hs0 > 0 ? heads[hs0] : -1, kHHS0);
    add_role(ldep2[static_cast<size_t>(s0)], kLd2S0);
    add_role(rdep2[static_cast<size_t>(s0)], kRd2S0);
    add_role(ldep2[static_cast<size_t>(b)], kLd2B0);
    add_label(kLLd2S0, ldep2[static_cast<size_t>(s0)]);
    add_label(kLRd2S0, rdep2[static_cast<size_t>(s0)]);
    add_label(kLLd2B0, ldep2[static_cast<size_t>(b)]);
    add_label(kLHS0, hs0);
    const int32_t counts[kNumValencyRoles] = {nleft[static_cast<size_t>(s0)], nright[static_cast<size_t>(s0)],
                                              nleft[static_cast<size_t>(b)]};
    for (int v = 0; v < kNumValencyRoles; ++v) {
      const int32_t c = ids.valency[v * kNumValencies + std::min(counts[v], kNumValencies - 1)];
      if (c >= 0) x.push_back(c);
    }
    const uint8_t* sets[kNumValencyRoles] = {sc.lset.data() + static_cast<size_t>(s0) * L,
                                             sc.rset.data() + static_cast<size_t>(s0) * L,
                                             sc.lset.data() + static_cast<size_t>(b) * L};
    for (int v = 0; v < kNumValencyRoles; ++v)
      for (size_t l = 0; l < L; ++l)
        if (sets[v][l]) {
          const int32_t c = ids.label_set[v * L + l];
          if (c >= 0) x.push_back(c);
        }
  };
  auto classify = [&](const Classifier& clf, std::vector<int64_t>* ptr, std::vector<int32_t>* ev) {
    if (ev != nullptr) {
      ev->insert(ev->end(), x.begin(), x.end());
      ptr->push_back(static_cast<int64_t>(ev->size()));
    }
    if (!timing) {
      clf.margins(Span<int32_t>(x), m);
      return;
    }
    const auto start = std::chrono::steady_clock::now();
    clf.margins(Span<int32_t>(x), m);
    stats.classifier_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };

  int32_t b = 1;
  while (b < n1) {
    const int32_t s0 = stack.back();
    const int32_t s1 = stack.size() >= 2 ? stack[stack.size() - 2] : -1;
    assemble(0, s0, s1, b);

    const bool s0_has_head = s0 > 0 && heads[s0] >= 0;
    const bool allow[4] = {true, s0_has_head, s0 > 0 && !s0_has_head, s0 > 0 || !root_done};
    classify(*model.transitions, trans_ptr, trans_events);
    ++stats.transition_decisions;
    const int64_t cls = best_allowed(m, model.n_transition_classes, model.transitions_sign, [&](size_t c) {
      const int32_t t = model.transition_of_class[c];
      return t >= 0 && allow[t];
    });
    const int32_t t = cls >= 0 ? model.transition_of_class[cls] : kShift;

    if (t == kLeftArc || t == kRightArc) {
      int32_t label = model.root_label;
      if (!(t == kRightArc && s0 == 0)) {
        if (model.labels == nullptr) {
          label = 0;
        } else {
          assemble(1, s0, s1, b);
          const int32_t arc = model.arc_feature[t == kLeftArc ? 0 : 1];
          if (arc >= 0) x.push_back(arc);
          classify(*model.labels, label_ptr, label_events);
          ++stats.label_decisions;
          const int64_t l = best_allowed(m, model.n_label_classes, model.labels_sign,
                                         [&](size_t c) { return static_cast<int32_t>(c) != model.root_label; });
          label = l >= 0 ? static_cast<int32_t>(l) : model.root_label;
        }
      }
      if (t == kLeftArc) {
        heads[s0] = b;
        labels[s0] = label;
        if (rich) {
          ldep2[static_cast<size_t>(b)] = ldep[static_cast<size_t>(b)];
          ++nleft[static_cast<size_t>(b)];
          sc.lset[static_cast<size_t>(b) * L + static_cast<size_t>(label)] = 1;
        }
        ldep[static_cast<size_t>(b)] = s0;  // later left arcs reach further left
        stack.pop_back();
      } else {
        heads[b] = s0;
        labels[b] = label;
        if (rich) {
          rdep2[static_cast<size_t>(s0)] = rdep[static_cast<size_t>(s0)];
          ++nright[static_cast<size_t>(s0)];
          sc.rset[static_cast<size_t>(s0) * L + static_cast<size_t>(label)] = 1;
        }
        rdep[static_cast<size_t>(s0)] = b;
        if (s0 == 0) root_done = true;
        stack.push_back(b);
        ++b;
      }
    } else if (t == kReduce) {
      stack.pop_back();
    } else {
      stack.push_back(b);
      ++b;
    }
  }
}

}  // namespace conjunct
