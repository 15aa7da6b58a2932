// Bindings of the trainers: PA-family learners with every margin mode, the
// l1-regularised log-linear baseline, and the kernel expansion of a model.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <stdexcept>

#include "common.h"
#include "conjunct/train/l1_loglinear.h"
#include "conjunct/train/pa.h"
#include "conjunct/train/text_scan.h"
#include "conjunct/train/weight_trie.h"
#include "conjunct/util/errors.h"

namespace conjunct::py {

namespace {

CsrView csr(const Array1<int64_t>& indptr, const Array1<int32_t>& indices) {
  if (indptr.size() == 0 || indptr.data()[0] != 0 ||
      indptr.data()[indptr.size() - 1] != static_cast<int64_t>(indices.size()))
    throw nb::value_error("indptr does not match indices");
  return CsrView{span_of(indptr), span_of(indices)};
}

// Checks the rows a pass will visit (not the whole matrix: passes come in chunks).
void check_rows(const CsrView& X, Span<int32_t> labels, Span<int64_t> order, size_t n_features, size_t K) {
  if (labels.size != X.rows()) throw nb::value_error("labels and rows differ in number");
  for (int64_t i : order) {
    if (i < 0 || static_cast<size_t>(i) >= X.rows()) throw nb::value_error("order names a row that does not exist");
    if (X.indptr[static_cast<size_t>(i)] > X.indptr[static_cast<size_t>(i) + 1])
      throw nb::value_error("indptr is not monotone");
    const Span<int32_t> row = X.row(static_cast<size_t>(i));
    for (size_t k = 0; k < row.size; ++k)
      if (row[k] < 0 || static_cast<size_t>(row[k]) >= n_features || (k && row[k] <= row[k - 1]))
        throw nb::value_error("rows must be strictly ascending internal feature ids below n_features");
    const int32_t y = labels[static_cast<size_t>(i)];
    if (K == 1 ? (y != 1 && y != -1) : (y < 0 || static_cast<size_t>(y) >= K))
      throw nb::value_error(K == 1 ? "binary labels must be +1 or -1" : "a class index is out of range");
  }
}

// Per-row weights (None: all 1): finite and non-negative, one per row.
Span<double> weights_of(const std::optional<Array1<double>>& weights, size_t rows) {
  if (!weights) return {};
  const Span<double> w = span_of(*weights);
  if (w.size != rows) throw nb::value_error("weights and rows differ in number");
  for (double v : w)
    if (!(v >= 0.0) || !std::isfinite(v)) throw nb::value_error("weights must be finite and non-negative");
  return w;
}

nb::dict stats_dict(const PaTrainer& t) {
  const MarginStats s = t.margin_stats();
  nb::dict d;
  d["rounds"] = t.rounds();
  d["updates"] = t.updates();
  d["support_vectors"] = t.support().n_sv();
  d["support_vector_features"] = t.support().nnz();
  d["margins"] = s.margins;
  d["terminated"] = s.terminated;
  d["skipped_steps"] = s.skipped_steps;
  d["kernel_steps"] = s.kernel_steps;
  d["expanded_steps"] = s.expanded_steps;
  d["reused"] = s.reused;
  d["remembered_nodes"] = s.remembered;
  d["postings_visited"] = s.postings;
  d["trie_lookups"] = s.trie_lookups;
  d["prunes"] = s.prunes;
  d["adaptive_blocks"] = s.adaptive_blocks;
  d["plain_blocks"] = s.plain_blocks;
  d["common_features"] = s.limit;
  d["weight_trie_nodes"] = s.weight_nodes;
  d["partial_margin_trie_nodes"] = s.partial_nodes;
  nb::dict mem;
  mem["support_set"] = t.support().memory_bytes();
  mem["postings"] = s.postings_bytes;
  mem["weight_trie"] = s.weight_bytes;
  mem["partial_margin_trie"] = s.partial_bytes;
  mem["bounds"] = s.bounds_bytes;
  mem["total"] = t.memory_bytes();
  d["memory_bytes"] = mem;
  return d;
}

}  // namespace

void bind_train(nb::module_& m) {
  nb::class_<PaTrainer>(m, "PaTrainer", "Online PA-family learner with the polynomial kernel (any margin mode).")
      .def(
          "__init__",
          [](PaTrainer* self, double gamma, double coef0, int degree, size_t n_outputs, const std::string& learner,
             double C, const std::string& margin, int64_t common_features, bool reuse, bool terminate,
             bool fit_intercept, int64_t weight_budget, bool trace, const std::string& step, bool adaptive_terminate) {
            value_errors([&] {
              PaOptions o;
              o.kernel = PolyKernel(gamma, coef0, degree);
              o.n_outputs = n_outputs;
              o.learner = parse_learner(learner);
              o.step = parse_step(step);
              o.C = C;
              o.mode = parse_margin_mode(margin);
              o.common_features = common_features;
              o.reuse = reuse;
              o.terminate = terminate;
              o.adaptive_terminate = adaptive_terminate;
              o.fit_intercept = fit_intercept;
              o.weight_budget = weight_budget;
              o.trace = trace;
              new (self) PaTrainer(o);
              return 0;
            });
          },
          nb::kw_only(), nb::arg("gamma"), nb::arg("coef0"), nb::arg("degree"), nb::arg("n_outputs"), nb::arg("learner"),
          nb::arg("C"), nb::arg("margin"), nb::arg("common_features"), nb::arg("reuse"), nb::arg("terminate"),
          nb::arg("fit_intercept"), nb::arg("weight_budget"), nb::arg("trace"), nb::arg("step") = "kernel",
          nb::arg("adaptive_terminate") = false)
      .def_prop_ro("n_features", &PaTrainer::n_features)
      .def_prop_ro("n_outputs", [](const PaTrainer& t) { return t.options().n_outputs; })
      .def_prop_ro("rounds", &PaTrainer::rounds)
      .def("ensure_features", [](PaTrainer& t, size_t n) { value_errors([&] { t.ensure_features(n); return 0; }); },
           nb::arg("n_features"))
      .def(
          "run",
          [](PaTrainer& t, const Array1<int64_t>& indptr, const Array1<int32_t>& indices, const Array1<int32_t>& labels,
             const Array1<int64_t>& order, const std::optional<Array1<double>>& weights) {
            const CsrView X = csr(indptr, indices);
            check_rows(X, span_of(labels), span_of(order), t.n_features(), t.options().n_outputs);
            const Span<double> w = weights_of(weights, X.rows());
            nb::gil_scoped_release release;
            t.run(X, span_of(labels), span_of(order), w);
          },
          nb::kw_only(), nb::arg("indptr"), nb::arg("indices"), nb::arg("labels"), nb::arg("order"),
          nb::arg("weights") = nb::none(),
          "One pass over the rows `order` (internal ids, strictly ascending rows); `weights`: one per row "
          "(empty: all 1), scaling C or the step.")
      .def(
          "export",
          [](const PaTrainer& t, bool average) {
            const SupportSet& S = t.support();
            std::vector<int64_t> ptr(S.ptr(), S.ptr() + S.n_sv() + 1);
            std::vector<int32_t> feat(S.features(), S.features() + S.nnz());
            const size_t n_sv = S.n_sv(), K = S.n_outputs();
            return nb::make_tuple(owned(std::move(ptr), n_sv + 1), owned(std::move(feat), S.nnz()),
                                  owned(t.alpha(average), n_sv, K), owned(t.bias(average), K));
          },
          nb::arg("average"), "(sv_indptr, sv_indices, alpha (n_sv, K), bias (K,)); averaged or as trained.")
      .def(
          "events",
          [](const PaTrainer& t) {
            const SupportSet& S = t.support();
            const size_t n = S.n_events();
            std::vector<int32_t> sv(n), pos(n), neg(n);
            std::vector<double> tau(n);
            std::vector<int64_t> round(n);
            for (size_t e = 0; e < n; ++e) {
              const Update& u = S.event(e);
              sv[e] = u.sv, pos[e] = u.pos, neg[e] = u.neg, tau[e] = u.tau, round[e] = u.round;
            }
            nb::dict d;
            d["sv"] = owned(std::move(sv), n);
            d["pos"] = owned(std::move(pos), n);
            d["neg"] = owned(std::move(neg), n);
            d["tau"] = owned(std::move(tau), n);
            d["round"] = owned(std::move(round), n);
            return d;
          },
          "The log of updates (to save and restore a trainer).")
      .def(
          "replay",
          [](PaTrainer& t, const Array1<int64_t>& sv_indptr, const Array1<int32_t>& sv_indices,
             const Array1<int32_t>& sv, const Array1<int32_t>& pos, const Array1<int32_t>& neg,
             const Array1<double>& tau, const Array1<int64_t>& round, int64_t rounds) {
            const CsrView S = csr(sv_indptr, sv_indices);
            const size_t n = sv.size();
            if (pos.size() != n || neg.size() != n || tau.size() != n || round.size() != n)
              throw nb::value_error("the update log's arrays differ in length");
            value_errors([&] {
              for (size_t e = 0; e < n; ++e) {
                const int32_t i = sv.data()[e];
                if (i < 0 || static_cast<size_t>(i) >= S.rows()) throw std::invalid_argument("an update names an unknown support vector");
                t.replay(S.row(static_cast<size_t>(i)), pos.data()[e], neg.data()[e], tau.data()[e], round.data()[e]);
              }
              t.set_rounds(rounds);
              return 0;
            });
          },
          nb::kw_only(), nb::arg("sv_indptr"), nb::arg("sv_indices"), nb::arg("sv"), nb::arg("pos"), nb::arg("neg"),
          nb::arg("tau"), nb::arg("round"), nb::arg("rounds"))
      .def("stats", &stats_dict, "Counters and memory (bytes) of the trainer.")
      .def(
          "trace",
          [](PaTrainer& t) {
            TraceLog& log = t.trace();
            const size_t n = log.example.size(), K = t.options().n_outputs;
            nb::dict d;
            d["example"] = owned(std::move(log.example), n);
            d["margin"] = owned(std::move(log.margin), n, K);
            d["bound"] = owned(std::move(log.bound), n);
            d["updated"] = owned(std::move(log.updated), n);
            d["tau"] = owned(std::move(log.tau), n);
            d["rival"] = owned(std::move(log.rival), n);
            log.clear();
            return d;
          },
          "The per-round log since the last call (when built with trace=True), then cleared.");

  nb::class_<L1LogLinear>(m, "L1Trainer", "SGD with cumulative l1 penalty over explicit conjunctions (Tsuruoka et al. 2009).")
      .def(
          "__init__",
          [](L1LogLinear* self, int degree, size_t n_outputs, double C, double eta0, double decay) {
            value_errors([&] {
              new (self) L1LogLinear(L1Options{degree, n_outputs, C, eta0, decay});
              return 0;
            });
          },
          nb::kw_only(), nb::arg("degree"), nb::arg("n_outputs"), nb::arg("C"), nb::arg("eta0"), nb::arg("decay"))
      .def(
          "run",
          [](L1LogLinear& t, const Array1<int64_t>& indptr, const Array1<int32_t>& indices, const Array1<int32_t>& labels,
             const Array1<int64_t>& order, int64_t n_examples, size_t n_features, size_t n_outputs,
             const std::optional<Array1<double>>& weights) {
            const CsrView X = csr(indptr, indices);
            check_rows(X, span_of(labels), span_of(order), n_features, n_outputs);
            const Span<double> w = weights_of(weights, X.rows());
            value_errors([&] {
              nb::gil_scoped_release release;
              t.run(X, span_of(labels), span_of(order), n_examples, w);
              return 0;
            });
          },
          nb::kw_only(), nb::arg("indptr"), nb::arg("indices"), nb::arg("labels"), nb::arg("order"), nb::arg("n_examples"),
          nb::arg("n_features"), nb::arg("n_outputs"), nb::arg("weights") = nb::none())
      .def(
          "margins",
          [](const L1LogLinear& t, const Array1<int64_t>& indptr, const Array1<int32_t>& indices, size_t n_outputs) {
            const CsrView X = csr(indptr, indices);
            for (size_t i = 0; i + 1 < indptr.size(); ++i) {
              const Span<int32_t> row = X.row(i);
              for (size_t k = 1; k < row.size; ++k)
                if (row[k] <= row[k - 1]) throw nb::value_error("rows must be strictly ascending internal feature ids");
            }
            std::vector<double> out(X.rows() * n_outputs);
            {
              nb::gil_scoped_release release;
              for (size_t i = 0; i < X.rows(); ++i) t.margins(X.row(i), out.data() + i * n_outputs);
            }
            return owned(std::move(out), X.rows(), n_outputs);
          },
          nb::arg("indptr"), nb::arg("indices"), nb::arg("n_outputs"))
      .def(
          "export",
          [](const L1LogLinear& t, bool all, size_t n_outputs) {
            std::vector<int64_t> indptr;
            std::vector<int32_t> indices;
            std::vector<double> w, q;
            t.export_weights(all, indptr, indices, w, all ? &q : nullptr);
            const size_t n = indptr.size() - 1, nnz = indices.size();
            auto qa = owned(std::move(q), all ? n : 0, n_outputs);
            return nb::make_tuple(owned(std::move(indptr), n + 1), owned(std::move(indices), nnz),
                                  owned(std::move(w), n, n_outputs), qa);
          },
          nb::arg("all"), nb::arg("n_outputs"),
          "(indptr, indices, weights (n, K), penalties q (n, K) when all) of the stored conjunctions.")
      .def(
          "load",
          [](L1LogLinear& t, const Array1<int64_t>& indptr, const Array1<int32_t>& indices, const ArrayN<double>& w,
             const ArrayN<double>& q, size_t n_outputs) {
            const CsrView C = csr(indptr, indices);
            if (w.size() != C.rows() * n_outputs || (q.size() && q.size() != w.size()))
              throw nb::value_error("weights must have one row of n_outputs per conjunction");
            value_errors([&] {
              for (size_t i = 0; i < C.rows(); ++i)
                t.set(C.row(i), w.data() + i * n_outputs, q.size() ? q.data() + i * n_outputs : nullptr);
              return 0;
            });
          },
          nb::kw_only(), nb::arg("indptr"), nb::arg("indices"), nb::arg("weights"), nb::arg("penalties"), nb::arg("n_outputs"))
      .def_prop_rw(
          "bias", [](L1LogLinear& t) { return t.bias(); },
          [](L1LogLinear& t, const std::vector<double>& b) {
            if (b.size() != t.bias().size()) throw nb::value_error("bias has the wrong length");
            t.bias() = b;
          })
      .def_prop_rw(
          "u", [](L1LogLinear& t) { return t.u(); }, [](L1LogLinear& t, double u) { t.u() = u; })
      .def_prop_rw(
          "samples", [](L1LogLinear& t) { return t.samples(); }, [](L1LogLinear& t, int64_t k) { t.samples() = k; })
      .def_prop_ro("n_conjunctions", &L1LogLinear::n_conjunctions)
      .def_prop_ro("memory_bytes", &L1LogLinear::memory_bytes);

  m.def(
      "dense_capacity",
      [](int degree, size_t n_outputs) { return WeightTrie::dense_capacity(degree, n_outputs); },
      nb::kw_only(), nb::arg("degree"), nb::arg("n_outputs"),
      "N chosen by common_features=None: the most features whose conjunctions the weight trie keeps in dense tables.");

  // Named apart from classify's expansion into a conjunction store: this one lists the conjunctions.
  m.def(
      "expand_kernel_model",
      [](double gamma, double coef0, int degree, const Array1<int64_t>& sv_indptr, const Array1<int32_t>& sv_indices,
         const ArrayN<double>& alpha, size_t max_bytes) {
        const CsrView S = csr(sv_indptr, sv_indices);
        const size_t n_sv = S.rows();
        if (n_sv == 0 || alpha.size() % n_sv != 0) throw nb::value_error("alpha must have one row per support vector");
        const size_t K = alpha.size() / n_sv;
        for (size_t i = 0; i < n_sv; ++i) {
          const Span<int32_t> row = S.row(i);
          for (size_t k = 0; k < row.size; ++k)
            if (row[k] < 0 || (k && row[k] <= row[k - 1])) throw nb::value_error("support vectors must be strictly ascending ids");
        }
        std::vector<int64_t> indptr;
        std::vector<int32_t> indices;
        std::vector<double> weights;
        value_errors([&] {
          nb::gil_scoped_release release;
          WeightTrie trie(PolyKernel(gamma, coef0, degree), K, INT32_MAX);
          // The trie plus its exported copy (K weights, an id and a pointer per
          // conjunction) checked after every support vector: an expansion
          // grows like |s|^d and would otherwise run until memory runs out.
          const size_t per_exported = K * sizeof(double) + sizeof(int32_t) + sizeof(int64_t);
          for (size_t i = 0; i < n_sv; ++i) {
            trie.add_dense(S.row(i), alpha.data() + i * K);
            if (max_bytes && trie.memory_bytes() + trie.n_conjunctions() * per_exported > max_bytes)
              throw LimitExceeded("the expansion exceeds max_bytes (" + std::to_string(max_bytes) + ") after " +
                                      std::to_string(i + 1) + " of " + std::to_string(n_sv) + " support vectors");
          }
          trie.export_all(indptr, indices, weights);
          return 0;
        });
        const size_t n = indptr.size() - 1, nnz = indices.size();
        return nb::make_tuple(owned(std::move(indptr), n + 1), owned(std::move(indices), nnz),
                              owned(std::move(weights), n, K));
      },
      nb::kw_only(), nb::arg("gamma"), nb::arg("coef0"), nb::arg("degree"), nb::arg("sv_indptr"), nb::arg("sv_indices"),
      nb::arg("alpha"), nb::arg("max_bytes") = 0,
      "Kernel expansion (Eq. 1): every conjunction (ids ascending, size 1..d) of the support vectors with its "
      "K weights c_d(|t|) * sum of the alpha rows containing it. The constant c_d(0) * sum(alpha) is not included. "
      "max_bytes (0: no limit) stops it with a LimitExceededError once the weights and their export would pass it.");

  auto scanned = [](TextScan&& r) -> nb::object {
    if (!r.ok) return nb::make_tuple(false, r.line);
    const size_t n = r.lengths.size(), nnz = r.features.size();
    return nb::make_tuple(true, r.line, nb::cast(r.labels), owned(std::move(r.label_ids), n),
                          owned(std::move(r.lengths), n), owned(std::move(r.features), nnz), nb::cast(r.vocabulary));
  };
  m.def(
      "scan_svmlight",
      [scanned](const nb::bytes& data, bool binarize) {
        TextScan r;
        {
          nb::gil_scoped_release release;
          r = scan_svmlight(data.c_str(), data.size(), binarize);
        }
        return scanned(std::move(r));
      },
      nb::arg("data"), nb::arg("binarize") = false,
      "Fast path of read_svmlight for plain ASCII files: (True, 0, label tokens, label ids, row lengths, feature "
      "ids, []) or (False, line) where it gave up (the Python reader then reads the file).");
  m.def(
      "scan_strings",
      [scanned](const nb::bytes& data, bool binarize) {
        TextScan r;
        {
          nb::gil_scoped_release release;
          r = scan_strings(data.c_str(), data.size(), binarize);
        }
        return scanned(std::move(r));
      },
      nb::arg("data"), nb::arg("binarize") = false,
      "Fast path of read_strings for plain ASCII files without escapes: (True, 0, label tokens, label ids, row "
      "lengths, feature indices, vocabulary) or (False, line) where it gave up.");
}

}  // namespace conjunct::py
