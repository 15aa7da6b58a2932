// Labeled arc-eager transition-based dependency parsing (Nivre 2003/2008),
// MaltParser-style: ROOT (token 0) starts on the stack; one classifier picks
// the transition (SH, RE, LA, RA) among the allowed ones by its margins, a
// second picks the arc label after LA/RA. Each component's features come
// from its own ArcEagerFeaturizer (its model's spec and key tables), so the
// loop never sees a feature string; tokens left headless are attached as
// tasks/english/transitions.finish_tree does.
#pragma once
#include <cstdint>
#include <vector>

#include "conjunct/classify/classifier.h"
#include "conjunct/tasks/arc_eager_features.h"

namespace conjunct {

// Transition codes (the order of `transition_of_class` below).
enum ArcEagerTransition { kShift = 0, kReduce, kLeftArc, kRightArc };

// What stays the same over a corpus: classifiers and their featurizers.
struct ArcEagerModel {
  const Classifier* transitions = nullptr;
  const Classifier* labels = nullptr;  // may be null: every arc gets label 0
  const ArcEagerFeaturizer* features[2] = {nullptr, nullptr};  // transition, label (same label values)
  bool transitions_sign = false;       // one output: class 1 iff margin > 0
  bool labels_sign = false;
  bool early_exit = true;              // classifiers may stop once bounds settle a choice (same choices)
  size_t n_transition_classes = 0;
  size_t n_label_classes = 0;          // classes of the label classifier
  int32_t transition_of_class[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
  int32_t root_label = -1;             // label value forced for RA from ROOT, never classified
  int32_t n_label_values = 0;          // label values (classifier classes and possibly root)
  int32_t dep_label = -1, punct_label = -1;  // output values of headless tokens (see finish_tree)
};

struct ArcEagerStats {
  int64_t transition_decisions = 0;
  int64_t label_decisions = 0;
  double classifier_seconds = 0.0;  // measured only when timing is asked for
  double label_seconds = 0.0;       // the label classifier's part of it
};

// Per component, the vectors classified (or, replaying moves, the vectors
// the configurations have): row offsets and feature ids.
struct ArcEagerEvents {
  std::vector<int64_t> ptr[2] = {{0}, {0}};
  std::vector<int32_t> ids[2];
};

// Parses tokens [b, e) of t (one sentence, ROOT not among them): heads[k]
// (0 = ROOT, else the 1-based token) and labels[k] (output values) of the
// k-th token, every token attached.
void arc_eager_parse(const ArcEagerModel& model, const ArcEagerTokens& t, int64_t b, int64_t e, int32_t* heads,
                     int32_t* labels, ArcEagerStats& stats, bool timing, ArcEagerEvents* events);

// Replays n_moves (transition, label value) moves on tokens [b, e) and
// appends the features of every configuration to events (the label
// component's at LA / RA not from ROOT), as arc_eager_parse would classify
// them. Throws std::invalid_argument on a move that is not allowed.
void arc_eager_replay(const ArcEagerModel& model, const ArcEagerTokens& t, int64_t b, int64_t e, const int32_t* moves,
                      const int32_t* move_labels, size_t n_moves, ArcEagerEvents& events);

}  // namespace conjunct
