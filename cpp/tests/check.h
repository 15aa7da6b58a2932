// What every C++ test shares: CHECK counts a failed condition and says where;
// main() returns report("name") (non-zero when a check failed).
#pragma once
#include <cstdio>
#include <exception>
#include <string>

inline int failures = 0;

#define CHECK(cond)                                                                 \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                                   \
    }                                                                               \
  } while (0)

// Whether f() throws a std::exception with `needle` in its message.
template <class F>
bool throws(F&& f, const char* needle) {
  try {
    f();
  } catch (const std::exception& e) {
    if (std::string(e.what()).find(needle) != std::string::npos) return true;
    std::fprintf(stderr, "  unexpected message: %s (wanted \"%s\")\n", e.what(), needle);
    return false;
  }
  return false;
}

inline int report(const char* test) {
  if (failures) std::fprintf(stderr, "%s: %d checks failed\n", test, failures);
  else std::printf("%s: ok\n", test);
  return failures ? 1 : 0;
}
