// The static trie (util/trie.h): breadth-first layout, child look-ups by scan,
// binary search and merge, and the checks a trie read from a file must pass.
#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "conjunct/classify/checks.h"
#include "conjunct/util/trie.h"

using namespace conjunct;

static int failures = 0;
#define CHECK(cond)                                                          \
  do {                                                                       \
    if (!(cond)) {                                                           \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                            \
    }                                                                        \
  } while (0)

template <class F>
static bool throws(F&& f, const char* needle) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).find(needle) != std::string::npos) return true;
    std::fprintf(stderr, "  unexpected message: %s (wanted \"%s\")\n", e.what(), needle);
    return false;
  }
  return false;
}

// A random trie of paths over n_features labels: node -> (label -> child).
struct Reference {
  std::vector<std::map<int32_t, int32_t>> children{1};
  std::vector<int32_t> parent{0}, label{-1};
  int32_t add(int32_t p, int32_t l) {
    auto it = children[p].find(l);
    if (it != children[p].end()) return it->second;
    const int32_t id = static_cast<int32_t>(label.size());
    children[p][l] = id;
    children.emplace_back();
    parent.push_back(p);
    label.push_back(l);
    return id;
  }
};

static void test_layout_and_lookups(uint32_t seed) {
  std::mt19937 rng(seed);
  const int32_t F = 1 + static_cast<int32_t>(rng() % 60);
  // Paths are sets of features, ascending (feature sequences) or descending
  // (conjunctions keyed rarest member first).
  const bool ascending = seed % 2 == 0;
  Reference ref;
  const int paths = static_cast<int>(rng() % 40);
  for (int k = 0; k < paths; ++k) {
    std::vector<int32_t> path;
    const int len = 1 + static_cast<int>(rng() % 5);
    for (int d = 0; d < len; ++d) path.push_back(static_cast<int32_t>(rng() % F));
    std::sort(path.begin(), path.end());
    path.erase(std::unique(path.begin(), path.end()), path.end());
    if (!ascending) std::reverse(path.begin(), path.end());
    int32_t node = 0;
    for (int32_t f : path) node = ref.add(node, f);
  }
  std::vector<int32_t> new_id;
  const TrieArrays t = layout_bfs(ref.parent, ref.label, F, new_id);
  const TrieView v = t.view();
  CHECK(v.n_nodes() == ref.label.size());
  CHECK(new_id[0] == 0);
  // Breadth first: children follow parents, runs are sorted by label.
  for (size_t n = 0; n < v.n_nodes(); ++n) {
    CHECK(v.first_child(static_cast<int32_t>(n)) > static_cast<int32_t>(n) || !v.has_children(static_cast<int32_t>(n)));
    for (int32_t c = v.first_child(static_cast<int32_t>(n)) + 1; c < v.end_child(static_cast<int32_t>(n)); ++c)
      CHECK(v.label[c - 1] < v.label[c]);
  }
  // Every edge of the reference is found, by id and by label; nothing else is.
  for (size_t old = 0; old < ref.children.size(); ++old) {
    const int32_t n = new_id[old];
    CHECK(static_cast<size_t>(v.end_child(n) - v.first_child(n)) == ref.children[old].size());
    for (int32_t f = -1; f <= F; ++f) {
      auto it = ref.children[old].find(f);
      const int32_t expect = it == ref.children[old].end() ? -1 : new_id[it->second];
      CHECK(v.child(n, f) == expect);
    }
    // for_each_child_in: the children whose label is in a sorted list, merge or search.
    std::vector<int32_t> xs;
    for (int32_t f = 0; f < F; ++f)
      if (rng() % 3 == 0) xs.push_back(f);
    std::vector<std::pair<int32_t, size_t>> got;
    v.for_each_child_in(n, xs.data(), xs.size(), [&](int32_t c, size_t i) { got.emplace_back(c, i); });
    std::vector<std::pair<int32_t, size_t>> want;
    for (size_t i = 0; i < xs.size(); ++i) {
      auto e = ref.children[old].find(xs[i]);
      if (e != ref.children[old].end()) want.emplace_back(new_id[e->second], i);
    }
    CHECK(got == want);
  }
  for (int32_t f = 0; f < F; ++f) CHECK(v.root_child(f) == v.child(0, f));
  // A laid-out trie passes the checks of a file's trie.
  try {
    check_trie(v, F, 0, ascending ? LabelOrder::Ascending : LabelOrder::Descending, 5, "trie");
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "seed %u: a well-formed trie was rejected: %s\n", seed, e.what());
    ++failures;
  }
}

static void test_checks_reject_malformed() {
  // Root 0 with children labelled 1 and 3; node 1 (label 1) has child 2 (label 2).
  std::vector<int32_t> parent{0, 0, 1, 0}, label{-1, 1, 2, 3}, new_id;
  const TrieArrays good = layout_bfs(parent, label, 5, new_id);
  check_trie(good.view(), 5, 0, LabelOrder::Ascending, 8, "trie");
  auto with = [&](auto edit) {
    TrieArrays t = good;
    edit(t);
    return t;
  };
  CHECK(throws([&] { check_trie(good.view(), 5, 0, LabelOrder::Descending, 8, "trie"); }, "label order"));
  CHECK(throws([&] { check_trie(good.view(), 5, 0, LabelOrder::Ascending, 1, "trie"); }, "deeper"));
  CHECK(throws([&] { check_trie(good.view(), 5, 2, LabelOrder::Ascending, 8, "trie"); }, "root child"));
  CHECK(throws([&] { check_trie(good.view(), 6, 0, LabelOrder::Ascending, 8, "trie"); }, "root_map has"));
  const TrieArrays bad_label = with([](TrieArrays& t) { t.label[3] = 9; });
  CHECK(throws([&] { check_trie(bad_label.view(), 5, 0, LabelOrder::Ascending, 8, "trie"); }, "label"));
  const TrieArrays cycle = with([](TrieArrays& t) { t.child_begin[1] = 1; });
  CHECK(throws([&] { check_trie(cycle.view(), 5, 0, LabelOrder::Ascending, 8, "trie"); }, "breadth-first"));
  const TrieArrays end = with([](TrieArrays& t) { t.child_begin.back() = 2; });
  CHECK(throws([&] { check_trie(end.view(), 5, 0, LabelOrder::Ascending, 8, "trie"); }, "cover"));
  const TrieArrays wrong_map = with([](TrieArrays& t) { std::swap(t.root_map[1], t.root_map[3]); });
  CHECK(throws([&] { check_trie(wrong_map.view(), 5, 0, LabelOrder::Ascending, 8, "trie"); }, "root_map entry"));
  const TrieArrays missing = with([](TrieArrays& t) { t.root_map[3] = -1; });
  CHECK(throws([&] { check_trie(missing.view(), 5, 0, LabelOrder::Ascending, 8, "trie"); }, "misses"));
  // Duplicate sibling labels cannot be laid out.
  std::vector<int32_t> dup_parent{0, 0, 0}, dup_label{-1, 2, 2};
  CHECK(throws([&] { layout_bfs(dup_parent, dup_label, 5, new_id); }, "duplicate"));
}

int main() {
  for (uint32_t seed = 0; seed < 200; ++seed) test_layout_and_lookups(seed);
  test_checks_reject_malformed();
  if (failures) std::fprintf(stderr, "test_trie: %d checks failed\n", failures);
  else std::printf("test_trie: ok\n");
  return failures ? 1 : 0;
}
