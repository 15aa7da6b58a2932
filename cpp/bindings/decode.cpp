// Linear-chain models, decoders and the perceptron trainer.
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/unique_ptr.h>

#include <stdexcept>

#include "common.h"
#include "conjunct/decode/decoder.h"
#include "conjunct/decode/perceptron.h"
#include "conjunct/tagging/tag_batch.h"
#include "featurize.h"

namespace conjunct::py {

namespace {

struct PyChainModel {
  ChainModel model;
  KeepAlive arrays;
};

Method method_of(const std::string& name) {
  try {
    return parse_method(name);
  } catch (const std::invalid_argument& e) {
    throw nb::value_error(e.what());
  }
}

// Checks the token CSR (rows of feature ids).
CsrView tokens_of(const Array1<int64_t>& indptr, const Array1<int32_t>& ids) {
  if (indptr.size() == 0 || indptr.data()[0] != 0) throw nb::value_error("token indptr must start at 0");
  const int64_t* p = indptr.data();
  for (size_t i = 1; i < indptr.size(); ++i)
    if (p[i] < p[i - 1]) throw nb::value_error("token indptr must be non-decreasing");
  if (p[indptr.size() - 1] > static_cast<int64_t>(ids.size())) throw nb::value_error("token indptr exceeds the feature ids");
  return CsrView{span_of(indptr), span_of(ids)};
}

// ... and the sentence pointers into it.
CsrView tokens_of(const Array1<int64_t>& indptr, const Array1<int32_t>& ids, const Array1<int64_t>& sent_ptr) {
  tokens_of(indptr, ids);
  const int64_t* s = sent_ptr.data();
  if (sent_ptr.size() == 0 || s[0] != 0) throw nb::value_error("sentence pointers must start at 0");
  for (size_t i = 1; i < sent_ptr.size(); ++i)
    if (s[i] < s[i - 1]) throw nb::value_error("sentence pointers must be non-decreasing");
  if (s[sent_ptr.size() - 1] != static_cast<int64_t>(indptr.size() - 1))
    throw nb::value_error("sentence pointers must end at the number of tokens");
  return CsrView{span_of(indptr), span_of(ids)};
}

Lattice lattice_of(const PyChainModel& m, const ArrayN<double>& E) {
  if (E.ndim() != 2 || E.shape(1) != m.model.n_labels())
    throw nb::value_error("emission table must have shape (n_tokens, n_labels)");
  return Lattice{E.data(), E.shape(0), &m.model.transitions};
}

std::unique_ptr<PyChainModel> make_chain_model(const Array1<int64_t>& w_indptr, const Array1<int32_t>& w_labels,
                                               const Array1<double>& w_values, const ArrayN<double>& trans,
                                               const Array1<double>& start, const Array1<double>& end,
                                               int64_t base_feature, bool lazy_scores, size_t group_size) {
  if (trans.ndim() != 2 || trans.shape(0) != trans.shape(1) || trans.shape(0) == 0)
    throw nb::value_error("transitions must be a non-empty square matrix");
  const size_t L = trans.shape(0);
  if (start.size() != L || end.size() != L) throw nb::value_error("start and end scores must have one entry per label");
  if (w_indptr.size() == 0 || w_indptr.data()[0] != 0) throw nb::value_error("weight indptr must start at 0");
  if (w_labels.size() != w_values.size() || w_indptr.data()[w_indptr.size() - 1] != static_cast<int64_t>(w_labels.size()))
    throw nb::value_error("weight indptr, labels and values do not match");
  for (size_t i = 1; i < w_indptr.size(); ++i)
    if (w_indptr.data()[i] < w_indptr.data()[i - 1]) throw nb::value_error("weight indptr must be non-decreasing");
  for (int32_t y : span_of(w_labels))
    if (y < 0 || static_cast<size_t>(y) >= L) throw nb::value_error("a weight names a label out of range");
  const int64_t* ip = w_indptr.data();
  const int32_t* lab = w_labels.data();
  for (size_t f = 0; f + 1 < w_indptr.size(); ++f)
    for (int64_t j = ip[f] + 1; j < ip[f + 1]; ++j)
      if (lab[j] <= lab[j - 1]) throw nb::value_error("weight labels must be strictly increasing within each feature");
  const int64_t n_features = static_cast<int64_t>(w_indptr.size()) - 1;
  if (base_feature < -1 || base_feature >= n_features) throw nb::value_error("base feature out of range");
  if (group_size == 0 || group_size > (size_t(1) << 20) || (group_size & (group_size - 1)))
    throw nb::value_error("group_size must be a power of two");
  auto m = std::make_unique<PyChainModel>();
  m->model.weights = SparseWeights{span_of(w_indptr), span_of(w_labels), span_of(w_values)};
  m->model.transitions = Transitions(L, trans.data());
  m->model.start.assign(start.data(), start.data() + L);
  m->model.end.assign(end.data(), end.data() + L);
  m->model.base = static_cast<int32_t>(base_feature);
  m->model.group_size = group_size;
  m->model.lazy_scores = lazy_scores;
  try {
    m->model.compile();
  } catch (const std::invalid_argument& e) {
    throw nb::value_error(e.what());
  }
  m->arrays.hold(w_indptr), m->arrays.hold(w_labels), m->arrays.hold(w_values);
  return m;
}

nb::tuple decode_batch(const PyChainModel& m, const Array1<int64_t>& indptr, const Array1<int32_t>& ids,
                       const Array1<int64_t>& sent_ptr, const std::string& method, size_t beam_width, int n_threads) {
  const Method how = method_of(method);
  const CsrView tokens = tokens_of(indptr, ids, sent_ptr);
  const size_t n_sent = sent_ptr.size() - 1, n_tok = tokens.rows();
  std::vector<int32_t> paths(n_tok), iterations(n_sent);
  std::vector<double> scores(n_sent);
  {
    nb::gil_scoped_release release;
    decode_batch(m.model, tokens, span_of(sent_ptr), how, beam_width, paths.data(), scores.data(), iterations.data(),
                 n_threads);
  }
  return nb::make_tuple(owned(std::move(paths), n_tok), owned(std::move(scores), n_sent),
                        owned(std::move(iterations), n_sent));
}

// Features and decoding of a token batch in one call, without the GIL.
nb::tuple tag_batch(const PyChainModel& m, const TokenFeatures& features, const Array1<uint8_t>& text,
                    const Array1<int64_t>& offsets, const Array1<int64_t>& sent_ptr, const std::string& method,
                    size_t beam_width, int n_threads) {
  const Method how = method_of(method);
  const TokenBatch batch = token_batch(text, offsets, sent_ptr);
  if (features.tables().size() != m.model.weights.n_features())
    throw nb::value_error("the feature tables and the weights have different numbers of features");
  const size_t n_sent = batch.n_sentences, n_tok = batch.n_tokens;
  std::vector<int32_t> paths(n_tok), iterations(n_sent);
  std::vector<double> scores(n_sent);
  {
    nb::gil_scoped_release release;
    conjunct::tag_batch(features, m.model, batch, how, beam_width, paths.data(), scores.data(), iterations.data(),
                        n_threads);
  }
  return nb::make_tuple(owned(std::move(paths), n_tok), owned(std::move(scores), n_sent),
                        owned(std::move(iterations), n_sent));
}

nb::tuple decode_emissions(const PyChainModel& m, const ArrayN<double>& E, const std::string& method, size_t beam_width) {
  const Method how = method_of(method);
  const Lattice lat = lattice_of(m, E);
  std::vector<int32_t> path(lat.N);
  DecodeStats st;
  {
    nb::gil_scoped_release release;
    st = decode(how, lat, path.data(), beam_width);
  }
  return nb::make_tuple(owned(std::move(path), lat.N), st.score, st.iterations);
}

double score_path(const PyChainModel& m, const ArrayN<double>& E, const Array1<int32_t>& path) {
  const Lattice lat = lattice_of(m, E);
  if (path.size() != lat.N) throw nb::value_error("path length does not match the emission table");
  for (int32_t y : span_of(path))
    if (y < 0 || static_cast<size_t>(y) >= m.model.n_labels()) throw nb::value_error("path names a label out of range");
  return path_score(lat, path.data());
}

OutArray emissions(const PyChainModel& m, const Array1<int64_t>& indptr, const Array1<int32_t>& ids) {
  const CsrView tokens = tokens_of(indptr, ids);
  const size_t N = tokens.rows(), L = m.model.n_labels();
  std::vector<double> E(N * L);
  {
    nb::gil_scoped_release release;
    m.model.emissions(tokens, 0, N, E.data());
  }
  return owned_array(std::move(E), N, L);
}

nb::dict epoch(PerceptronTrainer& tr, const Array1<int64_t>& indptr, const Array1<int32_t>& ids,
               const Array1<int64_t>& sent_ptr, const Array1<int32_t>& gold, const Array1<int64_t>& order,
               const std::string& method, size_t beam_width) {
  const Method how = method_of(method);
  const CsrView tokens = tokens_of(indptr, ids, sent_ptr);
  if (gold.size() != tokens.rows()) throw nb::value_error("one gold label per token is needed");
  // Checks the sentences this pass visits only: passes come in slices (progress, Ctrl-C).
  const size_t n_sent = sent_ptr.size() - 1;
  for (int64_t s : span_of(order)) {
    if (s < 0 || static_cast<size_t>(s) >= n_sent) throw nb::value_error("the order names an unknown sentence");
    for (int64_t t = sent_ptr.data()[s]; t < sent_ptr.data()[s + 1]; ++t) {
      const int32_t y = gold.data()[t];
      if (y < 0 || static_cast<size_t>(y) >= tr.n_labels()) throw nb::value_error("a gold label is out of range");
      for (int32_t f : tokens.row(static_cast<size_t>(t)))
        if (f < 0 || static_cast<size_t>(f) >= tr.n_features()) throw nb::value_error("a feature id is out of range");
    }
  }
  EpochStats st;
  {
    nb::gil_scoped_release release;
    st = tr.epoch(tokens, span_of(sent_ptr), span_of(gold), span_of(order), how, beam_width);
  }
  nb::dict d;
  d["sentences"] = st.sentences;
  d["tokens"] = st.tokens;
  d["token_errors"] = st.token_errors;
  d["sentence_errors"] = st.sentence_errors;
  d["iterations"] = st.iterations;
  return d;
}

nb::tuple export_weights(const PerceptronTrainer& tr, bool averaged) {
  std::vector<int64_t> indptr;
  std::vector<int32_t> labels;
  std::vector<double> values, trans, start, end;
  {
    nb::gil_scoped_release release;
    tr.export_weights(averaged, indptr, labels, values, trans, start, end);
  }
  const size_t L = tr.n_labels();
  const size_t nnz = labels.size();
  return nb::make_tuple(owned(std::move(indptr), indptr.size()), owned(std::move(labels), nnz),
                        owned(std::move(values), nnz), owned_array(std::move(trans), L, L),
                        owned_array(std::move(start), L, 0), owned_array(std::move(end), L, 0));
}

nb::tuple trainer_state(const PerceptronTrainer& tr) {
  PerceptronTrainer::State s;
  {
    nb::gil_scoped_release release;
    s = tr.state();
  }
  const size_t L = tr.n_labels(), nnz = s.labels.size();
  return nb::make_tuple(owned(std::move(s.indptr), tr.n_features() + 1), owned(std::move(s.labels), nnz),
                        owned(std::move(s.w), nnz), owned(std::move(s.u), nnz), owned_array(std::move(s.trans), L, L),
                        owned_array(std::move(s.trans_u), L, L), owned_array(std::move(s.start), L, 0),
                        owned_array(std::move(s.start_u), L, 0), owned_array(std::move(s.end), L, 0),
                        owned_array(std::move(s.end_u), L, 0), s.c);
}

void set_trainer_state(PerceptronTrainer& tr, const Array1<int64_t>& indptr, const Array1<int32_t>& labels,
                       const Array1<double>& w, const Array1<double>& u, const ArrayN<double>& trans,
                       const ArrayN<double>& trans_u, const Array1<double>& start, const Array1<double>& start_u,
                       const Array1<double>& end, const Array1<double>& end_u, double c) {
  const size_t L = tr.n_labels(), F = tr.n_features();
  if (indptr.size() != F + 1 || indptr.data()[0] != 0) throw nb::value_error("state indptr must have n_features + 1 entries from 0");
  for (size_t i = 1; i <= F; ++i)
    if (indptr.data()[i] < indptr.data()[i - 1]) throw nb::value_error("state indptr must be non-decreasing");
  const size_t nnz = labels.size();
  if (static_cast<size_t>(indptr.data()[F]) != nnz || w.size() != nnz || u.size() != nnz)
    throw nb::value_error("state indptr, labels, w and u do not match");
  for (int32_t y : span_of(labels))
    if (y < 0 || static_cast<size_t>(y) >= L) throw nb::value_error("a state entry names a label out of range");
  for (const ArrayN<double>* t : {&trans, &trans_u})
    if (t->ndim() != 2 || t->shape(0) != L || t->shape(1) != L) throw nb::value_error("state transitions must be L x L");
  for (const Array1<double>* v : {&start, &start_u, &end, &end_u})
    if (v->size() != L) throw nb::value_error("state start and end scores must have L entries");
  if (!(c >= 1)) throw nb::value_error("state c must be at least 1");
  PerceptronTrainer::State s;
  s.indptr.assign(indptr.data(), indptr.data() + F + 1);
  s.labels.assign(labels.data(), labels.data() + nnz);
  s.w.assign(w.data(), w.data() + nnz), s.u.assign(u.data(), u.data() + nnz);
  s.trans.assign(trans.data(), trans.data() + L * L), s.trans_u.assign(trans_u.data(), trans_u.data() + L * L);
  s.start.assign(start.data(), start.data() + L), s.start_u.assign(start_u.data(), start_u.data() + L);
  s.end.assign(end.data(), end.data() + L), s.end_u.assign(end_u.data(), end_u.data() + L);
  s.c = c;
  tr.set_state(s);
}

}  // namespace

const ChainModel& chain_model_of(nb::handle model) {
  try {
    return nb::cast<const PyChainModel&>(model).model;
  } catch (const nb::cast_error&) {
    throw nb::type_error("expected a compiled linear-chain model (LinearChainModel.compiled)");
  }
}

void bind_decode(nb::module_& m) {
  nb::class_<PyChainModel>(m, "ChainModel",
                           "An immutable compiled linear-chain model (thread-safe): sparse emission weights per feature, "
                           "label-bigram transitions, start and end scores; labels ranked by training frequency.")
      .def_prop_ro("n_labels", [](const PyChainModel& c) { return c.model.n_labels(); })
      .def_prop_ro("n_features", [](const PyChainModel& c) { return c.model.weights.n_features(); })
      .def_prop_ro("n_groups", [](const PyChainModel& c) { return c.model.n_groups(); })
      .def("decode_batch", &decode_batch, nb::arg("indptr"), nb::arg("ids"), nb::arg("sent_ptr"), nb::arg("method"),
           nb::kw_only(), nb::arg("beam_width") = 4, nb::arg("n_threads") = 1,
           "Decode sentences of feature-id tokens: (paths, scores, iterations).")
      .def("tag", &tag_batch, nb::arg("features"), nb::arg("text"), nb::arg("offsets"), nb::arg("sent_ptr"),
           nb::arg("method"), nb::kw_only(), nb::arg("beam_width") = 4, nb::arg("n_threads") = 1,
           "Tag sentences of tokens text[offsets[i]:offsets[i + 1]] (UTF-8): features and decoding in one call\n"
           "without the GIL; (paths, scores, iterations).")
      .def("decode_emissions", &decode_emissions, nb::arg("emissions"), nb::arg("method"), nb::kw_only(),
           nb::arg("beam_width") = 4,
           "Decode one (n_tokens, n_labels) emission table (start/end included): (path, score, iterations).")
      .def("path_score", &score_path, nb::arg("emissions"), nb::arg("path"), "Score of a path under an emission table.")
      .def("emissions", &emissions, nb::arg("indptr"), nb::arg("ids"),
           "Emission table of one sentence (start and end scores folded in).");
  m.def("make_chain_model", &make_chain_model, nb::arg("w_indptr"), nb::arg("w_labels"), nb::arg("w_values"),
        nb::arg("transitions"), nb::arg("start"), nb::arg("end"), nb::kw_only(), nb::arg("base_feature") = -1,
        nb::arg("lazy_scores") = false, nb::arg("group_size") = 8,
        "A compiled linear-chain model (weights CSR by feature, labels strictly increasing).");

  nb::class_<PerceptronTrainer>(m, "PerceptronTrainer", "Averaged structured perceptron over a linear chain.")
      .def(nb::init<size_t, size_t>(), nb::arg("n_features"), nb::arg("n_labels"))
      .def_prop_ro("n_features", &PerceptronTrainer::n_features)
      .def_prop_ro("n_labels", &PerceptronTrainer::n_labels)
      .def("epoch", &epoch, nb::arg("indptr"), nb::arg("ids"), nb::arg("sent_ptr"), nb::arg("gold"), nb::arg("order"),
           nb::arg("method"), nb::kw_only(), nb::arg("beam_width") = 4,
           "One training pass; returns error and iteration counts.")
      .def("export_weights", &export_weights, nb::kw_only(), nb::arg("averaged") = true,
           "(w_indptr, w_labels, w_values, transitions, start, end).")
      .def("state", &trainer_state,
           "The training state: (indptr, labels, w, u, transitions, transitions_u, start, start_u, end, end_u, c).")
      .def("set_state", &set_trainer_state, nb::arg("indptr"), nb::arg("labels"), nb::arg("w"), nb::arg("u"),
           nb::arg("transitions"), nb::arg("transitions_u"), nb::arg("start"), nb::arg("start_u"), nb::arg("end"),
           nb::arg("end_u"), nb::arg("c"), "Replace the training state (what state() returns).");
}

}  // namespace conjunct::py
