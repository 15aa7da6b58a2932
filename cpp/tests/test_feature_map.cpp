// FeatureMap::apply (features.h): column ids to sorted, duplicate-free
// internal ids, unseen columns dropped, whatever the mix of small ids (sorted
// through a bit set) and large ones (compared), and the bit set left clear.
#include <algorithm>
#include <cstdio>
#include <random>
#include <set>
#include <vector>

#include "conjunct/features.h"

using namespace conjunct;

static int failures = 0;
#define CHECK(cond)                                                                 \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                                   \
    }                                                                               \
  } while (0)

int main() {
  std::mt19937 rng(7);
  MappedIds scratch;
  for (int trial = 0; trial < 3000; ++trial) {
    const int32_t n_columns = 1 + static_cast<int32_t>(rng() % 5000);
    const int32_t n_internal = 1 + static_cast<int32_t>(rng() % 4000);  // some ids above 1024, some not
    std::vector<int32_t> map(static_cast<size_t>(n_columns));
    for (int32_t& v : map) v = rng() % 4 == 0 ? -1 : static_cast<int32_t>(rng() % n_internal);
    const FeatureMap fm{Span<int32_t>(map)};
    std::vector<int32_t> columns;
    const size_t length = rng() % (trial % 10 == 0 ? 300 : 40);  // long vectors too
    for (size_t k = 0; k < length; ++k) {
      const int kind = static_cast<int>(rng() % 10);
      if (kind == 0) columns.push_back(-1 - static_cast<int32_t>(rng() % 5));              // negative: unseen
      else if (kind == 1) columns.push_back(n_columns + static_cast<int32_t>(rng() % 10));  // beyond the map
      else if (kind == 2 && !columns.empty()) columns.push_back(columns[rng() % columns.size()]);  // repeated
      else columns.push_back(static_cast<int32_t>(rng() % n_columns));
    }
    std::set<int32_t> want;
    for (int32_t c : columns)
      if (c >= 0 && c < n_columns && map[static_cast<size_t>(c)] >= 0) want.insert(map[static_cast<size_t>(c)]);
    const size_t n = fm.apply(Span<int32_t>(columns), scratch);
    const std::vector<int32_t> got(scratch.ids.begin(), scratch.ids.begin() + static_cast<std::ptrdiff_t>(n));
    CHECK(got == std::vector<int32_t>(want.begin(), want.end()));
    CHECK(std::all_of(std::begin(scratch.small), std::end(scratch.small), [](uint64_t w) { return w == 0; }));
  }
  if (failures) std::fprintf(stderr, "test_feature_map: %d checks failed\n", failures);
  else std::printf("test_feature_map: ok\n");
  return failures ? 1 : 0;
}
