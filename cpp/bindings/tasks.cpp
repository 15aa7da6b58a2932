#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>


#include "common.h"
#include "conjunct/tasks/sassano.h"

namespace conjunct::py {

// Defined in classify.cpp: the C++ classifier behind a compiled Python handle.
const Classifier& classifier_of(nb::handle compiled);

void bind_tasks(nb::module_& m) {
  m.def(
      "parse_bunsetsu",
      [](nb::handle compiled, const std::string& rule, size_t n_classes, int64_t depends, bool early_exit,
         const Array1<int64_t>& sentence_ptr, const Array1<int64_t>& mod_ptr, const Array1<int32_t>& mod_ids,
         const Array1<int64_t>& head_ptr, const Array1<int32_t>& head_ids, const Array1<int64_t>& btw_ptr,
         const Array1<int32_t>& btw_ids, const Array1<int32_t>& distance, bool timing, bool collect) {
        const Classifier& clf = classifier_of(compiled);
        const Decision decision = checked_decision(rule, n_classes, clf.n_outputs());
        const size_t n_bunsetsu = mod_ptr.size() - 1;
        if (head_ptr.size() != mod_ptr.size() || btw_ptr.size() != mod_ptr.size() || distance.size() != 3)
          throw nb::value_error("inconsistent bunsetsu feature arrays");
        check_sentence_offsets(sentence_ptr, n_bunsetsu, "bunsetsu");
        std::vector<int32_t> heads(n_bunsetsu, -1);
        std::vector<int64_t> ev_ptr{0};
        std::vector<int32_t> ev;
        ParseStats stats;
        const double total = for_each_sentence(sentence_ptr, [&](int64_t b, int64_t e) {
            BunsetsuSentenceView s;
            s.modifier = csr_rows(mod_ptr, mod_ids, b, e);
            s.head = csr_rows(head_ptr, head_ids, b, e);
            s.between = csr_rows(btw_ptr, btw_ids, b, e);
            for (int d = 0; d < 3; ++d) s.distance[d] = distance.data()[d];
            sassano_parse(clf, decision, depends, early_exit, s, heads.data() + b, stats, timing,
                          collect ? &ev_ptr : nullptr, collect ? &ev : nullptr);
        });
        return nb::make_tuple(to_numpy(std::move(heads)), stats.decisions, stats.classifier_seconds, total,
                              collected(collect, std::move(ev_ptr), std::move(ev)));
      },
      nb::arg("classifier"), nb::arg("rule"), nb::arg("n_classes"), nb::arg("depends"), nb::arg("early_exit"),
      nb::arg("sentence_ptr"), nb::arg("mod_ptr"), nb::arg("mod_ids"), nb::arg("head_ptr"), nb::arg("head_ids"),
      nb::arg("btw_ptr"), nb::arg("btw_ids"), nb::arg("distance"), nb::arg("timing") = false, nb::arg("collect") = false,
      "Sassano's parser over many sentences: (heads, decisions, classifier seconds, total seconds, events).");
}

}  // namespace conjunct::py
