// Bindings of the self-adaptive classifier: its counters, and emptying its
// caches (it is compiled and opened like every classifier, see classify.cpp).
#include "common.h"
#include "compiled.h"
#include "conjunct/classify/adaptive.h"

namespace conjunct::py {

namespace {

const Adaptive& adaptive_of(const CompiledClassifier& compiled) {
  const auto* a = dynamic_cast<const Adaptive*>(&compiled.classifier());
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
      "adaptive_stats", [](const CompiledClassifier& compiled) { return stats_dict(adaptive_of(compiled).stats()); },
      nb::arg("classifier"), "Counters of an adaptive classifier's caches (every thread or shard).");

  m.def(
      "adaptive_clear",
      [](const CompiledClassifier& compiled) {
        const Adaptive& a = adaptive_of(compiled);
        nb::gil_scoped_release release;
        a.clear();
      },
      nb::arg("classifier"), "Empties an adaptive classifier's caches and counters.");
}

}  // namespace conjunct::py
