//===- Profile.h - where a rank's step time goes ----------------*- C++ -*-===//
//
// Per-thread (per-rank) sums of the time compiled code spends in each kind
// of work, read by a driver through precrtCompiledGetProfile.
//
//===----------------------------------------------------------------------===//

#ifndef PRECRT_LIB_CORE_PROFILE_H
#define PRECRT_LIB_CORE_PROFILE_H

#include "precrt/compiled.h"

#include <chrono>
#include <cstdint>

namespace precrt {
namespace profile {

inline int64_t nowNanoseconds() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Adds the time since `start` (nowNanoseconds()) to the calling thread's
/// `kind`.
void record(precrt_profile_kind_t kind, int64_t start);

/// Adds the time since `start` to `kind` without counting a call: work that
/// belongs to that kind's calls (a peer window's creation, to the fences).
void addTime(precrt_profile_kind_t kind, int64_t start);

/// Adds `seconds` and `calls` to the calling thread's `kind`: work timed on
/// another thread for this rank (its communication thread).
void add(precrt_profile_kind_t kind, double seconds, int64_t calls);

/// Times a scope as one call of `kind`.
class Scope {
public:
  explicit Scope(precrt_profile_kind_t kind)
      : kind_(kind), start_(nowNanoseconds()) {}
  ~Scope() { record(kind_, start_); }
  Scope(const Scope &) = delete;
  Scope &operator=(const Scope &) = delete;

private:
  precrt_profile_kind_t kind_;
  int64_t start_;
};

} // namespace profile
} // namespace precrt

#endif // PRECRT_LIB_CORE_PROFILE_H
