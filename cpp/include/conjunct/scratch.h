// Per-thread scratch space for the hot loops: one object of type T per thread
// and type, created on first use and reused by every later call. Every user
// passes a type of its own (a struct private to its source file), so no two
// users share an object.
//
// Held through a pointer on purpose: when code works on a thread_local object
// directly, compilers specialise it for that object and re-derive its address
// at every member access -- in a shared library (the Python module) each time
// a call to __tls_get_addr. Measured: staggered decoding 25% slower that way.
#pragma once
#include <memory>

namespace conjunct {

template <class T>
T& thread_scratch() {
  thread_local std::unique_ptr<T> object;
  if (!object) object = std::make_unique<T>();
  return *object;
}

}  // namespace conjunct
