#include "conjunct/tasks/arc_eager.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "conjunct/scratch.h"

namespace conjunct {

namespace {

// A configuration of one sentence and the arcs built so far (what the
// features read), in per-thread storage reused from sentence to sentence.
struct ArcEagerScratch {
  std::vector<int32_t> x, stack, heads, labels, deps[4], n_left, n_right, codes[2];
  std::vector<uint8_t> left_set, right_set;
  std::vector<uint8_t> allowed_classes[2] = {std::vector<uint8_t>(8), {}};  // transition, label classes
  ArcEagerFeaturizer::Scratch fscratch;
  int32_t n1 = 0, b = 1;
  size_t L = 0;
  bool root_done = false, sets = false;

  void start(int32_t n_tokens, size_t n_label_values, bool track_sets) {
    n1 = n_tokens;
    b = 1;
    L = n_label_values;
    root_done = false;
    sets = track_sets;
    const size_t n = static_cast<size_t>(n1);
    stack.assign(1, 0);
    heads.assign(n, -1);
    labels.assign(n, -1);
    for (auto& d : deps) d.assign(n, -1);
    n_left.assign(n, 0);
    n_right.assign(n, 0);
    if (sets) {
      left_set.assign(n * L, 0);
      right_set.assign(n * L, 0);
    }
  }
  ArcEagerConfig config() const {
    return ArcEagerConfig{stack.data(), stack.size(), b, n1, heads.data(), labels.data(),
                          {deps[0].data(), deps[1].data(), deps[2].data(), deps[3].data()},
                          n_left.data(), n_right.data(), left_set.data(), right_set.data()};
  }
  int32_t s0() const { return stack.back(); }
  bool allowed(int32_t t) const {
    const int32_t s = s0();
    const bool has_head = s > 0 && heads[s] >= 0;
    switch (t) {
      case kShift: return true;
      case kReduce: return has_head;
      case kLeftArc: return s > 0 && !has_head;
      default: return s > 0 || !root_done;
    }
  }
  void apply(int32_t t, int32_t label) {
    const int32_t s = s0();
    const size_t us = static_cast<size_t>(s), ub = static_cast<size_t>(b);
    if (t == kLeftArc) {
      heads[us] = b;
      labels[us] = label;
      deps[2][ub] = deps[0][ub];  // later left arcs reach further left
      deps[0][ub] = s;
      ++n_left[ub];
      if (sets && label >= 0) left_set[ub * L + static_cast<size_t>(label)] = 1;
      stack.pop_back();
    } else if (t == kRightArc) {
      heads[ub] = s;
      labels[ub] = label;
      deps[3][us] = deps[1][us];  // later right arcs reach further right
      deps[1][us] = b;
      ++n_right[us];
      if (sets && label >= 0) right_set[us * L + static_cast<size_t>(label)] = 1;
      if (s == 0) root_done = true;
      stack.push_back(b++);
    } else if (t == kReduce) {
      stack.pop_back();
    } else {
      stack.push_back(b++);
    }
  }
  // The features of component k (0 transition, 1 label with the arc move) into x.
  void features(const ArcEagerModel& model, int k, int move) {
    x.clear();
    model.features[k]->features(config(), codes[k].data(), move, fscratch, x);
  }
};

ArcEagerScratch& start(const ArcEagerModel& model, const ArcEagerTokens& t, int64_t b, int64_t e) {
  ArcEagerScratch& sc = thread_scratch<ArcEagerScratch>();
  const bool sets = model.features[0]->reads_dependents() || model.features[1]->reads_dependents();
  sc.start(static_cast<int32_t>(e - b + 1), static_cast<size_t>(model.n_label_values), sets);
  for (int k = 0; k < 2; ++k) model.features[k]->prepare(t, b, e, sc.codes[k]);
  sc.allowed_classes[1].resize(std::max<size_t>(model.n_label_classes, 2));
  return sc;
}

void record(ArcEagerEvents* events, int k, const std::vector<int32_t>& x) {
  if (events == nullptr) return;
  events->ids[k].insert(events->ids[k].end(), x.begin(), x.end());
  events->ptr[k].push_back(static_cast<int64_t>(events->ids[k].size()));
}

}  // namespace

void arc_eager_parse(const ArcEagerModel& model, const ArcEagerTokens& t, int64_t b, int64_t e, int32_t* heads,
                     int32_t* labels, ArcEagerStats& stats, bool timing, ArcEagerEvents* events) {
  if (e <= b) return;
  ArcEagerScratch& sc = start(model, t, b, e);
  const Decision t_rule{model.transitions_sign ? DecisionKind::Sign : DecisionKind::Argmax,
                        model.transitions_sign ? size_t{2} : model.n_transition_classes};
  const Decision l_rule{model.labels_sign ? DecisionKind::Sign : DecisionKind::Argmax,
                        model.labels_sign ? size_t{2} : model.n_label_classes};
  uint8_t* t_allowed = sc.allowed_classes[0].data();
  uint8_t* l_allowed = sc.allowed_classes[1].data();
  for (size_t c = 0; c < l_rule.n_classes; ++c) l_allowed[c] = static_cast<int32_t>(c) != model.root_label;
  // The class best_allowed picks among the allowed ones (-1: none).
  auto choose = [&](const Classifier& clf, const Decision& rule, const uint8_t* allowed) {
    if (!timing) return clf.predict_allowed(Span<int32_t>(sc.x), rule, allowed, model.early_exit);
    const auto start = std::chrono::steady_clock::now();
    const int64_t c = clf.predict_allowed(Span<int32_t>(sc.x), rule, allowed, model.early_exit);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    stats.classifier_seconds += seconds;
    if (&clf == model.labels) stats.label_seconds += seconds;
    return c;
  };

  while (sc.b < sc.n1) {
    const int32_t s0 = sc.s0();
    sc.features(model, 0, -1);
    record(events, 0, sc.x);
    ++stats.transition_decisions;
    for (size_t c = 0; c < t_rule.n_classes; ++c) {
      const int32_t tr = model.transition_of_class[c];
      t_allowed[c] = tr >= 0 && sc.allowed(tr);
    }
    const int64_t cls = choose(*model.transitions, t_rule, t_allowed);
    const int32_t tr = cls >= 0 ? model.transition_of_class[cls] : kShift;
    int32_t label = -1;
    if (tr == kLeftArc || tr == kRightArc) {
      label = model.root_label;
      if (!(tr == kRightArc && s0 == 0)) {
        if (model.labels == nullptr) {
          label = 0;
        } else {
          sc.features(model, 1, tr == kLeftArc ? 0 : 1);
          record(events, 1, sc.x);
          ++stats.label_decisions;
          const int64_t l = choose(*model.labels, l_rule, l_allowed);
          label = l >= 0 ? static_cast<int32_t>(l) : model.root_label;
        }
      }
    }
    sc.apply(tr, label);
  }
  // Tokens left headless attach to the root word (the first of them becomes
  // it when no token was attached to ROOT): PUNCT ones as punct, others as dep.
  const int32_t n = sc.n1 - 1;
  int32_t root = -1;
  for (int32_t k = 1; k <= n && root < 0; ++k)
    if (sc.heads[static_cast<size_t>(k)] == 0) root = k;
  for (int32_t k = 1; k <= n; ++k) {
    int32_t h = sc.heads[static_cast<size_t>(k)], l = sc.labels[static_cast<size_t>(k)];
    if (h < 0) {
      if (root < 0) {
        root = k;
        h = 0, l = model.root_label;
      } else {
        h = root;
        l = t.field(b + k - 1, 1) == "PUNCT" ? model.punct_label : model.dep_label;
      }
    } else if (l < 0) {
      l = model.dep_label;
    }
    heads[k - 1] = h;
    labels[k - 1] = l;
  }
}

void arc_eager_replay(const ArcEagerModel& model, const ArcEagerTokens& t, int64_t b, int64_t e, const int32_t* moves,
                      const int32_t* move_labels, size_t n_moves, ArcEagerEvents& events) {
  if (e <= b) return;
  ArcEagerScratch& sc = start(model, t, b, e);
  for (size_t k = 0; k < n_moves; ++k) {
    const int32_t tr = moves[k];
    if (sc.b >= sc.n1 || tr < 0 || tr > 3 || !sc.allowed(tr)) throw std::invalid_argument("a move is not allowed");
    const int32_t label = move_labels[k];
    if (label < -1 || label >= model.n_label_values) throw std::invalid_argument("a move's label is out of range");
    sc.features(model, 0, -1);
    record(&events, 0, sc.x);
    if ((tr == kLeftArc || tr == kRightArc) && !(tr == kRightArc && sc.s0() == 0)) {
      sc.features(model, 1, tr == kLeftArc ? 0 : 1);
      record(&events, 1, sc.x);
    }
    sc.apply(tr, tr == kRightArc && sc.s0() == 0 ? model.root_label : label);
  }
}

}  // namespace conjunct
