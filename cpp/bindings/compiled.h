// The Python-facing handle of any compiled classifier
// (_core.CompiledClassifier, conjunct.Classifier.compiled): the classifier,
// the arrays it views, and its decision rule. Task functions take the handle
// alone, so a classifier always travels with its own rule and classes.
#pragma once
#include <memory>
#include <string>

#include "common.h"
#include "conjunct/classify/classifier.h"

namespace conjunct::py {

struct CompiledClassifier {
  std::unique_ptr<Classifier> impl;
  KeepAlive arrays;
  std::string method;
  std::string rule;
  Decision decision;

  const Classifier& classifier() const { return *impl; }
  size_t n_classes() const { return decision.n_classes; }
};

}  // namespace conjunct::py
