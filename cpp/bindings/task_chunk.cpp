#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>


#include "common.h"
#include "conjunct/tasks/yamcha_chunk.h"

namespace conjunct::py {

// Defined in classify.cpp: the C++ classifier behind a compiled Python handle.
const Classifier& classifier_of(nb::handle compiled);

void bind_task_chunk(nb::module_& m) {
  m.def(
      "chunk_yamcha",
      [](nb::handle compiled, const std::string& rule, size_t n_classes, bool early_exit,
         const Array1<int64_t>& sentence_ptr, const Array1<int64_t>& token_ptr, const Array1<int32_t>& token_ids,
         const Array1<int32_t>& prev1, const Array1<int32_t>& prev2, bool timing, bool collect) {
        const Classifier& clf = classifier_of(compiled);
        const Decision decision = checked_decision(rule, n_classes, clf.n_outputs());
        if (prev1.size() != n_classes + 1 || prev2.size() != n_classes + 1)
          throw nb::value_error("the dynamic feature tables need n_classes + 1 entries (the last for BOS)");
        if (token_ptr.size() == 0) throw nb::value_error("token offsets are empty");
        const size_t n_tokens = token_ptr.size() - 1;
        if (static_cast<size_t>(token_ptr.data()[n_tokens]) != token_ids.size())
          throw nb::value_error("token offsets do not cover the feature ids");
        check_sentence_offsets(sentence_ptr, n_tokens, "tokens");
        std::vector<int32_t> labels(n_tokens, -1);
        std::vector<int64_t> ev_ptr{0};
        std::vector<int32_t> ev;
        ChunkStats stats;
        const double total = for_each_sentence(sentence_ptr, [&](int64_t b, int64_t e) {
            ChunkSentenceView s;
            s.tokens = csr_rows(token_ptr, token_ids, b, e);
            s.prev1 = span_of(prev1);
            s.prev2 = span_of(prev2);
            yamcha_chunk(clf, decision, early_exit, s, labels.data() + b, stats, timing, collect ? &ev_ptr : nullptr,
                         collect ? &ev : nullptr);
        });
        return nb::make_tuple(to_numpy(std::move(labels)), stats.decisions, stats.classifier_seconds, total,
                              collected(collect, std::move(ev_ptr), std::move(ev)));
      },
      nb::arg("classifier"), nb::arg("rule"), nb::arg("n_classes"), nb::arg("early_exit"), nb::arg("sentence_ptr"),
      nb::arg("token_ptr"), nb::arg("token_ids"), nb::arg("prev1"), nb::arg("prev2"), nb::arg("timing") = false,
      nb::arg("collect") = false,
      "YamCha-style left-to-right chunking over many sentences: (class indices, decisions, classifier seconds, "
      "total seconds, events).");
}

}  // namespace conjunct::py
