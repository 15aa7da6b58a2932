// Labeled arc-eager transition-based dependency parsing (Nivre 2003/2008),
// MaltParser-style: ROOT (token 0) starts on the stack; one classifier picks
// the transition (SH, RE, LA, RA) among the allowed ones by its margins, a
// second picks the arc label after LA/RA. Feature vectors are assembled from
// column ids cached per token by the caller, so the loop never sees strings.
#pragma once
#include <cstdint>
#include <vector>

#include "conjunct/classify/classifier.h"

namespace conjunct {

// Token roles with static features, in this order (see tasks/english/features.py
// ROLES, RICH_ROLES): the "malt" set has the first kNumRoles, the "rich" set
// (Zhang & Nivre 2011) adds s0's and b0's leftmost / rightmost dependents, the
// head of s0's head and the second leftmost / rightmost dependents.
enum ArcEagerRole {
  kS0 = 0, kS1, kB0, kB1, kB2, kB3, kHS0, kNumRoles,
  kLdS0 = kNumRoles, kRdS0, kLdB0, kHHS0, kLd2S0, kRd2S0, kLd2B0, kNumRichRoles
};
// Label-feature roles: label of s0's arc, of s0's leftmost and rightmost
// dependents, of b0's leftmost dependent; "rich" adds the second leftmost /
// rightmost dependents' labels and the label of s0's head's arc.
enum ArcEagerLabelRole {
  kLS0 = 0, kLLdS0, kLRdS0, kLLdB0, kNumLabelRoles,
  kLLd2S0 = kNumLabelRoles, kLRd2S0, kLLd2B0, kLHS0, kNumRichLabelRoles
};
constexpr int kNumDistances = 6;  // buckets 1, 2, 3, 4, 5-9, 10+
// "rich": valency (0, 1, 2, 3, 4+) and label sets of s0's left, s0's right and b0's left dependents.
constexpr int kNumValencyRoles = 3;
constexpr int kNumValencies = 5;

// Transition codes (the order of `transition_class` below).
enum ArcEagerTransition { kShift = 0, kReduce, kLeftArc, kRightArc };

// One component's columns of the features that do not come from tokens.
struct ArcEagerIds {
  int32_t none_ids[kNumRichRoles];  // column of "<role>=NONE" (-1: unseen)
  Span<int32_t> label_feature;      // [label roles][n_label_values + 1] (last: NONE)
  int32_t distance[kNumDistances];
  int32_t valency[kNumValencyRoles * kNumValencies];  // "rich" only
  Span<int32_t> label_set;          // "rich": [kNumValencyRoles][n_label_values]
};

// What stays the same over a corpus: classifiers and the id tables.
struct ArcEagerModel {
  const Classifier* transitions = nullptr;
  const Classifier* labels = nullptr;  // may be null: every arc gets label 0 (test use only)
  bool transitions_sign = false;       // one output: class 1 iff margin > 0
  bool labels_sign = false;
  size_t n_transition_classes = 0;
  size_t n_label_classes = 0;          // classes of the label classifier
  int64_t transition_class[4] = {-1, -1, -1, -1};  // SH, RE, LA, RA -> class index (-1: absent)
  int32_t transition_of_class[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
  int32_t root_label = -1;             // label value forced for RA from ROOT, never classified
  int32_t n_label_values = 0;          // label values (classifier classes and possibly root)
  ArcEagerIds ids[2];                  // per component: 0 transition, 1 label
  int32_t arc_feature[2];              // "t=LA", "t=RA" (label classifier input)
  bool rich = false;                   // the "rich" feature set (else "malt")
  int n_roles() const { return rich ? kNumRichRoles : kNumRoles; }
};

// One sentence, per component (the two classifiers have feature indexes of
// their own): rows of `tokens` are token*n_roles + role for tokens 0 (ROOT) .. n.
struct ArcEagerSentenceView {
  CsrView tokens[2];
  int n_roles = kNumRoles;
  size_t n_tokens() const { return tokens[0].rows() / static_cast<size_t>(n_roles); }  // n + 1
};

struct ArcEagerStats {
  int64_t transition_decisions = 0;
  int64_t label_decisions = 0;
  double classifier_seconds = 0.0;  // measured only when timing is asked for
};

// Heads (-1: left unattached) and label values of tokens 0..n (token 0 = ROOT
// gets -1). With events, the vectors classified are appended per component.
void arc_eager_parse(const ArcEagerModel& model, const ArcEagerSentenceView& s, int32_t* heads, int32_t* labels,
                     ArcEagerStats& stats, bool timing, std::vector<int64_t>* trans_ptr,
                     std::vector<int32_t>* trans_events, std::vector<int64_t>* label_ptr,
                     std::vector<int32_t>* label_events);

}  // namespace conjunct
