// The English arc-eager parser: a batch of sentences in one call, from flat
// buffers or straight from the Python sentence objects, every decision and
// every feature in C++ with the GIL released.
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "common.h"
#include "compiled.h"
#include "conjunct/tagging/tag_batch.h"
#include "conjunct/tasks/arc_eager.h"
#include "featurize.h"

namespace conjunct::py {

const ChainModel& chain_model_of(nb::handle model);

namespace {

struct PyArcEagerFeatures {
  std::shared_ptr<const ArcEagerFeaturizer> impl;
};

// The tokens of one call: UTF-8 text, three field offsets per token (form,
// UPOS, XPOS) plus one, and the token offsets of every sentence; or, with
// tag ids, one field (the form) per token and the tags as ids into names.
struct Tokens {
  std::string text;
  std::vector<int64_t> field_ptr{0}, sentence_ptr{0};
  std::vector<int32_t> tag_ids[2];
  std::vector<std::string> tag_names[2];
  std::vector<std::string_view> tag_views[2];
  bool tagged = false;
  ArcEagerTokens view() const {
    ArcEagerTokens t{text.data(), field_ptr.data()};
    if (tagged)
      for (int k = 0; k < 2; ++k) t.tag_ids[k] = tag_ids[k].data(), t.tag_names[k] = tag_views[k].data();
    return t;
  }
  size_t fields() const { return tagged ? 1 : 3; }
  size_t n_tokens() const { return (field_ptr.size() - 1) / fields(); }

  void check() const {
    if (field_ptr.empty() || (field_ptr.size() - 1) % fields() != 0)
      throw nb::value_error(tagged ? "form offsets need one entry per token, plus one"
                                   : "field offsets need three entries per token (form, UPOS, XPOS), plus one");
    if (field_ptr[0] != 0 || field_ptr.back() != static_cast<int64_t>(text.size()))
      throw nb::value_error("field offsets do not cover the text");
    for (size_t k = 1; k < field_ptr.size(); ++k)
      if (field_ptr[k] < field_ptr[k - 1]) throw nb::value_error("field offsets decrease");
    if (sentence_ptr.empty() || sentence_ptr[0] != 0 || static_cast<size_t>(sentence_ptr.back()) != n_tokens())
      throw nb::value_error("sentence offsets do not cover the tokens");
    for (size_t k = 1; k < sentence_ptr.size(); ++k)
      if (sentence_ptr[k] < sentence_ptr[k - 1]) throw nb::value_error("sentence offsets decrease");
    for (int t = 0; tagged && t < 2; ++t) {
      if (tag_ids[t].size() != n_tokens())
        throw nb::value_error(t == 0 ? "one UPOS id per token is needed" : "one XPOS id per token is needed");
      for (const int32_t id : tag_ids[t])
        if (id < 0 || static_cast<size_t>(id) >= tag_names[t].size())
          throw nb::value_error(t == 0 ? "a UPOS id is outside its tag names" : "an XPOS id is outside its tag names");
    }
  }
};

Tokens from_tagged(const nb::bytes& text, const Array1<int64_t>& form_ptr, const Array1<int64_t>& sentence_ptr,
                   const Array1<int32_t>& upos, const std::vector<std::string>& upos_names, const Array1<int32_t>& xpos,
                   const std::vector<std::string>& xpos_names) {
  Tokens in;
  in.tagged = true;
  in.text.assign(text.c_str(), text.size());
  in.field_ptr.assign(form_ptr.data(), form_ptr.data() + form_ptr.size());
  in.sentence_ptr.assign(sentence_ptr.data(), sentence_ptr.data() + sentence_ptr.size());
  const Array1<int32_t>* ids[2] = {&upos, &xpos};
  const std::vector<std::string>* names[2] = {&upos_names, &xpos_names};
  for (int t = 0; t < 2; ++t) {
    in.tag_ids[t].assign(ids[t]->data(), ids[t]->data() + ids[t]->size());
    in.tag_names[t] = *names[t];
    for (const std::string& name : in.tag_names[t]) in.tag_views[t].emplace_back(name);
  }
  in.check();
  return in;
}

Tokens from_buffers(const nb::bytes& text, const Array1<int64_t>& field_ptr, const Array1<int64_t>& sentence_ptr) {
  Tokens in;
  in.text.assign(text.c_str(), text.size());
  in.field_ptr.assign(field_ptr.data(), field_ptr.data() + field_ptr.size());
  in.sentence_ptr.assign(sentence_ptr.data(), sentence_ptr.data() + sentence_ptr.size());
  in.check();
  return in;
}

// The tokens of DepSentence objects (forms, upos, xpos: lists of str), read
// through the C API: no Python code per token.
Tokens from_sentences(nb::handle sentences) {
  static PyObject* s_fields[3] = {PyUnicode_InternFromString("forms"), PyUnicode_InternFromString("upos"),
                                  PyUnicode_InternFromString("xpos")};
  Tokens in;
  const nb::object seq = nb::steal(PySequence_Fast(sentences.ptr(), "sentences must be a sequence"));
  if (!seq.is_valid()) throw nb::python_error();
  const Py_ssize_t n_sent = PySequence_Fast_GET_SIZE(seq.ptr());
  PyObject** sents = PySequence_Fast_ITEMS(seq.ptr());
  for (Py_ssize_t s = 0; s < n_sent; ++s) {
    const std::string where = "sentence " + std::to_string(s + 1);
    nb::object columns[3];
    PyObject* const* items[3];
    Py_ssize_t n = -1;
    for (int f = 0; f < 3; ++f) {
      columns[f] = nb::steal(PyObject_GetAttr(sents[s], s_fields[f]));
      if (!columns[f].is_valid()) throw nb::python_error();
      Py_ssize_t len;
      items[f] = items_of(columns[f].ptr(), len, where + ": " + PyUnicode_AsUTF8(s_fields[f]));
      if (n >= 0 && len != n) throw nb::value_error((where + ": forms, upos and xpos differ in length").c_str());
      n = len;
    }
    for (Py_ssize_t k = 0; k < n; ++k)
      for (int f = 0; f < 3; ++f) {
        PyObject* v = items[f][k];
        if (!PyUnicode_Check(v))
          throw nb::type_error((where + ", token " + std::to_string(k + 1) + ": its " + PyUnicode_AsUTF8(s_fields[f]) +
                                " is not a string").c_str());
        Py_ssize_t len;
        const char* utf8 = PyUnicode_AsUTF8AndSize(v, &len);
        if (utf8 == nullptr) throw nb::python_error();
        in.text.append(utf8, static_cast<size_t>(len));
        in.field_ptr.push_back(static_cast<int64_t>(in.text.size()));
      }
    in.sentence_ptr.push_back(in.sentence_ptr.back() + n);
  }
  return in;
}

// Whether the classifier's rule is sign (else argmax; the parser reads margins, not votes).
bool sign_rule(const CompiledClassifier& c, const char* what) {
  if (c.decision.kind == DecisionKind::Ovo)
    throw nb::value_error((std::string("the ") + what + " classifier needs a sign or argmax decision rule").c_str());
  return c.decision.kind == DecisionKind::Sign;
}

const ArcEagerFeaturizer& featurizer_of(nb::handle h) { return *nb::cast<const PyArcEagerFeatures&>(h).impl; }

void set_features(ArcEagerModel& model, nb::handle t_features, nb::handle l_features, int32_t root_label) {
  model.features[0] = &featurizer_of(t_features);
  model.features[1] = &featurizer_of(l_features);
  model.n_label_values = static_cast<int32_t>(model.features[0]->n_label_values());
  if (model.features[1]->n_label_values() != model.features[0]->n_label_values())
    throw nb::value_error("the two components' featurizers have different label values");
  if (root_label < 0 || root_label >= model.n_label_values) throw nb::value_error("root label out of range");
  model.root_label = root_label;
}

nb::object events_of(bool collect, ArcEagerEvents& ev) {
  if (!collect) return nb::none();
  return nb::make_tuple(to_numpy(std::move(ev.ptr[0])), to_numpy(std::move(ev.ids[0])), to_numpy(std::move(ev.ptr[1])),
                        to_numpy(std::move(ev.ids[1])));
}

// The parser's model, checked: its classifiers, their rules and classes, and the label values.
ArcEagerModel model_of(const CompiledClassifier& transitions, const Array1<int64_t>& transition_of_class,
                       const CompiledClassifier* labels, int32_t root_label, int32_t dep_label, int32_t punct_label,
                       int32_t n_output_labels, nb::handle t_features, nb::handle l_features, bool early_exit) {
  ArcEagerModel model;
  model.early_exit = early_exit;
  set_features(model, t_features, l_features, root_label);
  model.transitions = &transitions.classifier();
  model.n_transition_classes = transitions.n_classes();
  if (model.n_transition_classes > 8) throw nb::value_error("the transition classifier needs 2 to 8 classes");
  if (transition_of_class.size() != model.n_transition_classes)
    throw nb::value_error("one transition code per class of the transition classifier is needed");
  model.transitions_sign = sign_rule(transitions, "transition");
  for (size_t c = 0; c < model.n_transition_classes; ++c) {
    const int64_t t = transition_of_class.data()[c];
    if (t < -1 || t > 3) throw nb::value_error("transition codes are 0..3 (SH, RE, LA, RA) or -1");
    model.transition_of_class[c] = static_cast<int32_t>(t);
  }
  if (labels != nullptr) {
    model.labels = &labels->classifier();
    model.labels_sign = sign_rule(*labels, "label");
    model.n_label_classes = labels->n_classes();
  }
  if (static_cast<int32_t>(model.n_label_classes) > model.n_label_values) throw nb::value_error("inconsistent label values");
  if (n_output_labels < model.n_label_values || dep_label < 0 || dep_label >= n_output_labels || punct_label < 0 ||
      punct_label >= n_output_labels)
    throw nb::value_error("inconsistent output labels");
  model.dep_label = dep_label;
  model.punct_label = punct_label;
  return model;
}

// Every sentence of the tokens parsed (without the GIL): heads, labels and the loop's counters.
struct Parsed {
  std::vector<int32_t> heads, labels;
  ArcEagerEvents events;
  ArcEagerStats stats;
  double total = 0.0;
};

void parse_all(const ArcEagerModel& model, const ArcEagerTokens& tokens, const std::vector<int64_t>& sentence_ptr,
               bool timing, bool collect, Parsed& out) {
  const size_t n = static_cast<size_t>(sentence_ptr.back());
  out.heads.assign(n, -1);
  out.labels.assign(n, -1);
  const auto start = std::chrono::steady_clock::now();
  for (size_t k = 0; k + 1 < sentence_ptr.size(); ++k) {
    const int64_t b = sentence_ptr[k], e = sentence_ptr[k + 1];
    arc_eager_parse(model, tokens, b, e, out.heads.data() + b, out.labels.data() + b, out.stats, timing,
                    collect ? &out.events : nullptr);
  }
  out.total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

nb::tuple results(Parsed&& p, const std::vector<int64_t>& sentence_ptr, bool collect) {
  return nb::make_tuple(to_numpy(std::move(p.heads)), to_numpy(std::move(p.labels)),
                        to_numpy(std::vector<int64_t>(sentence_ptr)), p.stats.transition_decisions,
                        p.stats.label_decisions, p.stats.classifier_seconds, p.stats.label_seconds, p.total,
                        events_of(collect, p.events));
}

nb::tuple parse(const ArcEagerModel& model, const Tokens& in, bool timing, bool collect) {
  Parsed p;
  {
    nb::gil_scoped_release release;
    parse_all(model, in.view(), in.sentence_ptr, timing, collect, p);
  }
  return results(std::move(p), in.sentence_ptr, collect);
}

// The tagger then the parser over one batch of tokens, without returning to
// Python in between: (joint tag ids, then parse()'s tuple).
nb::tuple tag_and_parse(nb::handle tag_features, nb::handle chain, const std::string& method, size_t beam_width,
                        const Array1<int32_t>& upos_of, const std::vector<std::string>& upos_names,
                        const Array1<int32_t>& xpos_of, const std::vector<std::string>& xpos_names,
                        const ArcEagerModel& model, const Array1<uint8_t>& text, const Array1<int64_t>& offsets,
                        const Array1<int64_t>& sentence_ptr) {
  const TokenFeatures* features;
  try {
    features = &nb::cast<const TokenFeatures&>(tag_features);
  } catch (const nb::cast_error&) {
    throw nb::type_error("tag_features must be a _core.TokenFeatures");
  }
  const ChainModel& tagger = chain_model_of(chain);
  if (features->tables().size() != tagger.weights.n_features())
    throw nb::value_error("the tagger's feature tables and weights have different numbers of features");
  const Method how = value_errors([&] { return parse_method(method); });
  if (beam_width < 1) throw nb::value_error("beam_width must be positive");
  // Per tagger label its UPOS and XPOS ids: the tags the parser reads.
  const Array1<int32_t>* of[2] = {&upos_of, &xpos_of};
  const std::vector<std::string>* names[2] = {&upos_names, &xpos_names};
  std::vector<std::string_view> views[2];
  for (int t = 0; t < 2; ++t) {
    if (of[t]->size() != tagger.n_labels()) throw nb::value_error("one UPOS and one XPOS id per tagger label are needed");
    for (size_t l = 0; l < of[t]->size(); ++l)
      if (of[t]->data()[l] < 0 || static_cast<size_t>(of[t]->data()[l]) >= names[t]->size())
        throw nb::value_error("a tagger label's UPOS or XPOS id is outside its tag names");
    for (const std::string& name : *names[t]) views[t].emplace_back(name);
  }
  const TokenBatch batch = token_batch(text, offsets, sentence_ptr);
  const std::vector<int64_t> sent(batch.sent_ptr, batch.sent_ptr + batch.n_sentences + 1);
  std::vector<int32_t> paths(batch.n_tokens), iterations(batch.n_sentences), ids[2];
  std::vector<double> scores(batch.n_sentences);
  Parsed p;
  {
    nb::gil_scoped_release release;
    conjunct::tag_batch(*features, tagger, batch, how, beam_width, paths.data(), scores.data(), iterations.data(), 1);
    for (int t = 0; t < 2; ++t) {
      ids[t].resize(batch.n_tokens);
      for (size_t k = 0; k < batch.n_tokens; ++k) ids[t][k] = of[t]->data()[paths[k]];
    }
    ArcEagerTokens tokens{batch.text, batch.offsets};
    for (int t = 0; t < 2; ++t) tokens.tag_ids[t] = ids[t].data(), tokens.tag_names[t] = views[t].data();
    parse_all(model, tokens, sent, false, false, p);
  }
  return nb::make_tuple(to_numpy(std::move(paths)), results(std::move(p), sent, false));
}

}  // namespace

void bind_task_english(nb::module_& m) {
  nb::class_<PyArcEagerFeatures>(m, "ArcEagerFeatures",
                                 "The arc-eager templates of a component's feature tables, built in C++ per configuration.")
      .def(
          "__init__",
          [](PyArcEagerFeatures* self, std::shared_ptr<FeatureTables> tables, const std::vector<std::string>& label_values) {
            try {
              new (self) PyArcEagerFeatures{std::make_shared<const ArcEagerFeaturizer>(std::move(tables), label_values)};
            } catch (const std::invalid_argument& e) {
              throw nb::value_error(e.what());
            }
          },
          nb::arg("tables"), nb::arg("label_values"))
      .def_prop_ro("reads_dependents", [](const PyArcEagerFeatures& f) { return f.impl->reads_dependents(); });

  const char* parse_doc =
      "Labeled arc-eager parsing of many sentences: (heads, labels, sentence offsets, transition decisions, label "
      "decisions, classifier seconds, label classifier seconds, total seconds, events). heads are 1-based (0 = root), labels index the output "
      "label values (the label values, then dep_label / punct_label's extras). With early_exit, a classifier that can bound "
      "what is left of its margins stops once they settle the choice (the same choices).";
  m.def(
      "parse_arc_eager",
      [](const CompiledClassifier& transitions, const Array1<int64_t>& transition_of_class,
         const CompiledClassifier* labels, int32_t root_label, int32_t dep_label, int32_t punct_label,
         int32_t n_output_labels, nb::handle t_features, nb::handle l_features,
         nb::handle sentences, bool timing, bool collect, bool early_exit) {
        const Tokens in = from_sentences(sentences);
        return parse(model_of(transitions, transition_of_class, labels, root_label, dep_label, punct_label,
                              n_output_labels, t_features, l_features, early_exit),
                     in, timing, collect);
      },
      nb::arg("transitions"), nb::arg("transition_of_class"), nb::arg("labels").none(), nb::arg("root_label"),
      nb::arg("dep_label"), nb::arg("punct_label"), nb::arg("n_output_labels"), nb::arg("transition_features"), nb::arg("label_features"),
      nb::arg("sentences"), nb::arg("timing") = false, nb::arg("collect") = false,
      nb::arg("early_exit") = true, parse_doc);
  m.def(
      "parse_arc_eager_buffers",
      [](const CompiledClassifier& transitions, const Array1<int64_t>& transition_of_class,
         const CompiledClassifier* labels, int32_t root_label, int32_t dep_label, int32_t punct_label,
         int32_t n_output_labels, nb::handle t_features, nb::handle l_features,
         const nb::bytes& text, const Array1<int64_t>& field_ptr, const Array1<int64_t>& sentence_ptr, bool timing,
         bool collect, bool early_exit) {
        const Tokens in = from_buffers(text, field_ptr, sentence_ptr);
        return parse(model_of(transitions, transition_of_class, labels, root_label, dep_label, punct_label,
                              n_output_labels, t_features, l_features, early_exit),
                     in, timing, collect);
      },
      nb::arg("transitions"), nb::arg("transition_of_class"), nb::arg("labels").none(), nb::arg("root_label"),
      nb::arg("dep_label"), nb::arg("punct_label"), nb::arg("n_output_labels"), nb::arg("transition_features"), nb::arg("label_features"),
      nb::arg("text"), nb::arg("field_ptr"), nb::arg("sentence_ptr"), nb::arg("timing") = false,
      nb::arg("collect") = false,
      nb::arg("early_exit") = true, parse_doc);
  m.def(
      "parse_arc_eager_tagged",
      [](const CompiledClassifier& transitions, const Array1<int64_t>& transition_of_class,
         const CompiledClassifier* labels, int32_t root_label, int32_t dep_label, int32_t punct_label,
         int32_t n_output_labels, nb::handle t_features, nb::handle l_features,
         const nb::bytes& text, const Array1<int64_t>& form_ptr, const Array1<int64_t>& sentence_ptr,
         const Array1<int32_t>& upos, const std::vector<std::string>& upos_names, const Array1<int32_t>& xpos,
         const std::vector<std::string>& xpos_names, bool timing, bool collect, bool early_exit) {
        const Tokens in = from_tagged(text, form_ptr, sentence_ptr, upos, upos_names, xpos, xpos_names);
        return parse(model_of(transitions, transition_of_class, labels, root_label, dep_label, punct_label,
                              n_output_labels, t_features, l_features, early_exit),
                     in, timing, collect);
      },
      nb::arg("transitions"), nb::arg("transition_of_class"), nb::arg("labels").none(), nb::arg("root_label"),
      nb::arg("dep_label"), nb::arg("punct_label"), nb::arg("n_output_labels"), nb::arg("transition_features"), nb::arg("label_features"),
      nb::arg("text"), nb::arg("form_ptr"), nb::arg("sentence_ptr"), nb::arg("upos"), nb::arg("upos_names"),
      nb::arg("xpos"), nb::arg("xpos_names"), nb::arg("timing") = false, nb::arg("collect") = false,
      nb::arg("early_exit") = true, parse_doc);
  m.def(
      "tag_parse_english",
      [](nb::handle tag_features, nb::handle chain, const std::string& method, size_t beam_width,
         const Array1<int32_t>& upos_of, const std::vector<std::string>& upos_names, const Array1<int32_t>& xpos_of,
         const std::vector<std::string>& xpos_names, const CompiledClassifier& transitions,
         const Array1<int64_t>& transition_of_class, const CompiledClassifier* labels, int32_t root_label,
         int32_t dep_label, int32_t punct_label, int32_t n_output_labels, nb::handle t_features, nb::handle l_features,
         bool early_exit, const Array1<uint8_t>& text, const Array1<int64_t>& offsets,
         const Array1<int64_t>& sentence_ptr) {
        const ArcEagerModel model = model_of(transitions, transition_of_class, labels, root_label, dep_label,
                                             punct_label, n_output_labels, t_features, l_features, early_exit);
        return tag_and_parse(tag_features, chain, method, beam_width, upos_of, upos_names, xpos_of, xpos_names, model,
                             text, offsets, sentence_ptr);
      },
      nb::arg("tag_features"), nb::arg("chain"), nb::arg("method"), nb::arg("beam_width"), nb::arg("upos_of"),
      nb::arg("upos_names"), nb::arg("xpos_of"), nb::arg("xpos_names"), nb::arg("transitions"),
      nb::arg("transition_of_class"), nb::arg("labels").none(), nb::arg("root_label"), nb::arg("dep_label"),
      nb::arg("punct_label"), nb::arg("n_output_labels"), nb::arg("transition_features"), nb::arg("label_features"),
      nb::arg("early_exit"), nb::arg("text"), nb::arg("offsets"), nb::arg("sentence_ptr"),
      "A linear-chain tagger, then the arc-eager parser on its tags, over one batch of tokens (UTF-8 text cut at "
      "offsets, sentences at sentence_ptr) in one call without the GIL: (joint tag ids, then parse_arc_eager's "
      "tuple). upos_of / xpos_of: per tagger label, the index of its UPOS / XPOS among upos_names / xpos_names.");
  m.def(
      "replay_arc_eager",
      [](nb::handle t_features, nb::handle l_features, int32_t root_label, nb::handle sentences,
         const Array1<int32_t>& moves, const Array1<int32_t>& move_labels, const Array1<int64_t>& move_ptr) {
        ArcEagerModel model;
        set_features(model, t_features, l_features, root_label);
        const Tokens in = from_sentences(sentences);
        const size_t n_sent = in.sentence_ptr.size() - 1;
        if (move_ptr.size() != n_sent + 1 || move_labels.size() != moves.size())
          throw nb::value_error("one move offset per sentence, plus one, and one label per move are needed");
        const int64_t* mp = move_ptr.data();
        if (mp[0] != 0 || static_cast<size_t>(mp[n_sent]) != moves.size())
          throw nb::value_error("move offsets do not cover the moves");
        for (size_t k = 0; k < n_sent; ++k)
          if (mp[k + 1] < mp[k]) throw nb::value_error("move offsets decrease");
        ArcEagerEvents events;
        try {
          nb::gil_scoped_release release;
          for (size_t k = 0; k < n_sent; ++k)
            arc_eager_replay(model, in.view(), in.sentence_ptr[k], in.sentence_ptr[k + 1], moves.data() + mp[k],
                             move_labels.data() + mp[k], static_cast<size_t>(mp[k + 1] - mp[k]), events);
        } catch (const std::invalid_argument& e) {
          throw nb::value_error(e.what());
        }
        return events_of(true, events);
      },
      nb::arg("transition_features"), nb::arg("label_features"), nb::arg("root_label"), nb::arg("sentences"),
      nb::arg("moves"), nb::arg("move_labels"), nb::arg("move_ptr"),
      "The features of every configuration of the given (transition, label value) moves, per component: "
      "(transition ptr, ids, label ptr, ids), as the parser would classify them.");
}

}  // namespace conjunct::py
