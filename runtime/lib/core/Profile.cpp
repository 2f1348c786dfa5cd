//===- Profile.cpp - where a rank's step time goes ------------------------===//

#include "core/Profile.h"

namespace precrt {
namespace profile {
namespace {
thread_local precrt_profile_t current = {};
} // namespace

void addTime(precrt_profile_kind_t kind, int64_t start) {
  current.seconds[kind] += double(nowNanoseconds() - start) * 1e-9;
}

void add(precrt_profile_kind_t kind, double seconds, int64_t calls) {
  current.seconds[kind] += seconds;
  current.calls[kind] += calls;
}

void record(precrt_profile_kind_t kind, int64_t start) {
  addTime(kind, start);
  ++current.calls[kind];
}

} // namespace profile
} // namespace precrt

extern "C" int64_t precrtCompiledProfileStart(void) {
  return precrt::profile::nowNanoseconds();
}

extern "C" void precrtCompiledProfileStop(int32_t kind, int64_t start) {
  if (kind >= 0 && kind < PRECRT_PROFILE_NUM_KINDS)
    precrt::profile::record(static_cast<precrt_profile_kind_t>(kind), start);
}

extern "C" void precrtCompiledGetProfile(precrt_profile_t *profile) {
  *profile = precrt::profile::current;
}

extern "C" void precrtCompiledResetProfile(void) {
  precrt::profile::current = {};
}
