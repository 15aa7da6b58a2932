// Bindings of the self-adaptive classifier: construction over a compiled
// pke / split base (and an optional warm-start fstrie), its counters, and
// emptying its caches.
#include <nanobind/stl/string.h>

#include <stdexcept>

#include "common.h"
#include "conjunct/classify/adaptive.h"

namespace conjunct::py {

const Classifier& classifier_of(nb::handle compiled);

namespace {

const Adaptive& adaptive_of(nb::handle compiled) {
  const auto* a = dynamic_cast<const Adaptive*>(&classifier_of(compiled));
  if (a == nullptr) throw nb::value_error("not an adaptive classifier");
  return *a;
}

nb::dict stats_dict(const AdaptiveStats& s) {
  nb::dict d;
  d["calls"] = s.calls;
  d["bypassed"] = s.bypassed;
  d["positions"] = s.positions;
  d["static_positions"] = s.static_positions;
  d["cached_positions"] = s.cached_positions;
  d["full_hits"] = s.full_hits;
  d["inserted"] = s.inserted;
  d["evicted"] = s.evicted;
  d["nodes"] = s.nodes;
  d["capacity"] = s.capacity;
  d["caches"] = s.caches;
  return d;
}

}  // namespace

void bind_adaptive(nb::module_& m) {
  m.def(
      "make_adaptive",
      [](const Array1<int32_t>& col_map, nb::object base_obj, nb::object trie, int64_t cache_rows,
         const std::string& eviction, bool doorkeeper, const std::string& sharing, int shards) {
        const Classifier& base_clf = classifier_of(base_obj);
        const auto* base = dynamic_cast<const ConjunctiveBase*>(&base_clf);
        if (base == nullptr) throw nb::value_error("the adaptive classifier's base must be a pke or split classifier");
        AdaptiveOptions opt;
        opt.cache_rows = cache_rows;
        if (eviction == "lru") opt.eviction = Eviction::Lru;
        else if (eviction == "lfu") opt.eviction = Eviction::Lfu;
        else throw nb::value_error("eviction must be 'lru' or 'lfu'");
        opt.doorkeeper = doorkeeper;
        if (sharing == "thread") opt.sharing = Sharing::Thread;
        else if (sharing == "shared") opt.sharing = Sharing::Shared;
        else throw nb::value_error("sharing must be 'thread' or 'shared'");
        opt.shards = shards;

        KeepAlive keep;
        keep.hold(col_map);
        keep.objects.push_back(base_obj);
        TrieView view;
        Span<double> weight;
        if (!trie.is_none()) {
          const nb::dict d = nb::cast<nb::dict>(trie);
          auto child_begin = array_from<int32_t>(d, "child_begin");
          auto label = array_from<int32_t>(d, "label");
          auto root_map = array_from<int32_t>(d, "root_map");
          auto w = array_from<double>(d, "weight");
          keep.hold(child_begin), keep.hold(label), keep.hold(root_map), keep.hold(w);
          view = TrieView{span_of(child_begin), span_of(label), span_of(root_map)};
          weight = span_of(w);
          if (view.child_begin.size != view.n_nodes() + 1) throw nb::value_error("malformed warm-start trie");
          for (int32_t x : view.child_begin)
            if (x < 0 || static_cast<size_t>(x) > view.n_nodes()) throw nb::value_error("malformed warm-start trie");
          for (size_t n = 0; n < view.n_nodes(); ++n)
            if (view.child_begin[n] > view.child_begin[n + 1]) throw nb::value_error("malformed warm-start trie");
          for (int32_t n : view.root_map)
            if (n < -1 || (n >= 0 && static_cast<size_t>(n) >= view.n_nodes()))
              throw nb::value_error("malformed warm-start trie root map");
        }
        std::unique_ptr<Classifier> impl;
        try {
          impl = std::make_unique<Adaptive>(FeatureMap{span_of(col_map)}, *base, base_clf.n_outputs(),
                                            trie.is_none() ? nullptr : &view, weight, opt);
        } catch (const std::invalid_argument& e) {
          throw nb::value_error(e.what());
        }
        return wrap_classifier(std::move(impl), std::move(keep), "adaptive");
      },
      nb::kw_only(), nb::arg("col_map"), nb::arg("base"), nb::arg("trie").none(), nb::arg("cache_rows"),
      nb::arg("eviction"), nb::arg("doorkeeper"), nb::arg("sharing"), nb::arg("shards"),
      "An adaptive classifier over a compiled pke / split classifier `base`, optionally warm-started from a "
      "static fstrie (a dict of its arrays, or None).");

  m.def(
      "adaptive_stats", [](nb::handle compiled) { return stats_dict(adaptive_of(compiled).stats()); },
      nb::arg("classifier"), "Counters of an adaptive classifier's caches (every thread or shard).");

  m.def(
      "adaptive_clear",
      [](nb::handle compiled) {
        const Adaptive& a = adaptive_of(compiled);
        nb::gil_scoped_release release;
        a.clear();
      },
      nb::arg("classifier"), "Empties an adaptive classifier's caches and counters.");
}

}  // namespace conjunct::py
