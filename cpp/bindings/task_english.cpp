#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>


#include "common.h"
#include "conjunct/tasks/arc_eager.h"

namespace conjunct::py {

// Defined in classify.cpp: the C++ classifier behind a compiled Python handle.
const Classifier& classifier_of(nb::handle compiled);

namespace {
bool sign_rule(const std::string& rule, size_t n_classes, const Classifier& clf, const char* what) {
  if (rule != "sign" && rule != "argmax")
    throw nb::value_error((std::string("the ") + what + " classifier needs a sign or argmax decision rule").c_str());
  const bool sign = rule == "sign";
  if (clf.n_outputs() != (sign ? 1 : n_classes))
    throw nb::value_error((std::string("the ") + what + " classifier's outputs do not match its classes").c_str());
  return sign;
}
}  // namespace

void bind_task_english(nb::module_& m) {
  m.def(
      "parse_arc_eager",
      [](nb::handle transitions, const std::string& trans_rule, const Array1<int64_t>& transition_of_class,
         nb::handle labels, const std::string& label_rule, size_t n_label_classes, int32_t root_label,
         int32_t n_label_values, const Array1<int64_t>& sentence_ptr, const nb::dict& t_tables,
         const nb::dict& l_tables, bool timing, bool collect) {
        ArcEagerModel model;
        model.transitions = &classifier_of(transitions);
        model.n_transition_classes = transition_of_class.size();
        if (model.n_transition_classes < 1 || model.n_transition_classes > 8)
          throw nb::value_error("the transition classifier needs 1 to 8 classes");
        model.transitions_sign = sign_rule(trans_rule, model.n_transition_classes, *model.transitions, "transition");
        for (size_t c = 0; c < model.n_transition_classes; ++c) {
          const int64_t t = transition_of_class.data()[c];
          if (t < -1 || t > 3) throw nb::value_error("transition codes are 0..3 (SH, RE, LA, RA) or -1");
          model.transition_of_class[c] = static_cast<int32_t>(t);
        }
        if (!labels.is_none()) {
          model.labels = &classifier_of(labels);
          model.labels_sign = sign_rule(label_rule, n_label_classes, *model.labels, "label");
        }
        model.n_label_classes = n_label_classes;
        model.root_label = root_label;
        model.n_label_values = n_label_values;
        if (n_label_values < static_cast<int32_t>(n_label_classes) || root_label < 0 || root_label >= n_label_values)
          throw nb::value_error("inconsistent label values");
        if (sentence_ptr.size() == 0) throw nb::value_error("no sentence offsets");
        const size_t n_tokens = static_cast<size_t>(sentence_ptr.data()[sentence_ptr.size() - 1]);
        check_sentence_offsets(sentence_ptr, n_tokens, "tokens");
        const nb::dict* tables[2] = {&t_tables, &l_tables};
        std::vector<Array1<int64_t>> token_ptr;
        std::vector<Array1<int32_t>> token_ids, label_feature, label_set;
        // The "rich" feature set's tables carry valency and label-set ids.
        model.rich = t_tables.contains("valency");
        const int n_roles = model.n_roles();
        const size_t n_label_roles = model.rich ? kNumRichLabelRoles : kNumLabelRoles;
        for (int k = 0; k < 2; ++k) {
          const nb::dict& d = *tables[k];
          if (d.contains("valency") != model.rich) throw nb::value_error("the two components' feature sets differ");
          token_ptr.push_back(array_from<int64_t>(d, "token_ptr"));
          token_ids.push_back(array_from<int32_t>(d, "token_ids"));
          label_feature.push_back(array_from<int32_t>(d, "label_feature"));
          const Array1<int32_t> none_ids = array_from<int32_t>(d, "none_ids");
          const Array1<int32_t> distance = array_from<int32_t>(d, "distance");
          if (none_ids.size() != static_cast<size_t>(n_roles) || distance.size() != kNumDistances ||
              label_feature[k].size() != n_label_roles * (n_label_values + 1))
            throw nb::value_error("inconsistent feature id tables");
          ArcEagerIds& ids = model.ids[k];
          for (int r = 0; r < n_roles; ++r) ids.none_ids[r] = none_ids.data()[r];
          for (int i = 0; i < kNumDistances; ++i) ids.distance[i] = distance.data()[i];
          ids.label_feature = span_of(label_feature[k]);
          if (model.rich) {
            const Array1<int32_t> valency = array_from<int32_t>(d, "valency");
            label_set.push_back(array_from<int32_t>(d, "label_set"));
            if (valency.size() != kNumValencyRoles * kNumValencies ||
                label_set.back().size() != static_cast<size_t>(kNumValencyRoles) * n_label_values)
              throw nb::value_error("inconsistent feature id tables");
            for (int i = 0; i < kNumValencyRoles * kNumValencies; ++i) ids.valency[i] = valency.data()[i];
            ids.label_set = span_of(label_set.back());
          }
          const Array1<int64_t>& tp = token_ptr[k];
          if (tp.size() != n_tokens * n_roles + 1) throw nb::value_error("token rows are not tokens x roles");
          if (tp.data()[tp.size() - 1] != static_cast<int64_t>(token_ids[k].size()))
            throw nb::value_error("token offsets do not cover the ids");
        }
        const Array1<int32_t> arc_feature = array_from<int32_t>(l_tables, "arc_feature");
        if (arc_feature.size() != 2) throw nb::value_error("arc_feature needs 2 ids");
        model.arc_feature[0] = arc_feature.data()[0];
        model.arc_feature[1] = arc_feature.data()[1];
        std::vector<int32_t> heads(n_tokens, -1), out_labels(n_tokens, -1);
        std::vector<int64_t> tptr{0}, lptr{0};
        std::vector<int32_t> tev, lev;
        ArcEagerStats stats;
        const double total = for_each_sentence(sentence_ptr, [&](int64_t b, int64_t e) {
            ArcEagerSentenceView s;
            s.n_roles = n_roles;
            for (int c = 0; c < 2; ++c)
              s.tokens[c] = CsrView{Span<int64_t>(token_ptr[c].data() + b * n_roles, static_cast<size_t>((e - b) * n_roles + 1)),
                                    span_of(token_ids[c])};
            arc_eager_parse(model, s, heads.data() + b, out_labels.data() + b, stats, timing, collect ? &tptr : nullptr,
                            collect ? &tev : nullptr, collect ? &lptr : nullptr, collect ? &lev : nullptr);
        });
        nb::object events = nb::none();
        if (collect)
          events = nb::make_tuple(to_numpy(std::move(tptr)), to_numpy(std::move(tev)), to_numpy(std::move(lptr)),
                                  to_numpy(std::move(lev)));
        return nb::make_tuple(to_numpy(std::move(heads)), to_numpy(std::move(out_labels)), stats.transition_decisions,
                              stats.label_decisions, stats.classifier_seconds, total, events);
      },
      nb::arg("transitions"), nb::arg("trans_rule"), nb::arg("transition_of_class"), nb::arg("labels").none(),
      nb::arg("label_rule"), nb::arg("n_label_classes"), nb::arg("root_label"), nb::arg("n_label_values"),
      nb::arg("sentence_ptr"), nb::arg("transition_tables"), nb::arg("label_tables"), nb::arg("timing") = false, nb::arg("collect") = false,
      "Labeled arc-eager parsing of many sentences: (heads, labels, transition decisions, label decisions, classifier "
      "seconds, total seconds, events).");
}

}  // namespace conjunct::py
