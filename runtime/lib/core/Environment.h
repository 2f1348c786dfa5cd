//===- Environment.h - Settings read from environment variables -*- C++ -*-===//

#ifndef PRECRT_LIB_CORE_ENVIRONMENT_H
#define PRECRT_LIB_CORE_ENVIRONMENT_H

#include <cstdint>

namespace precrt {

enum class EnvNumber { Unset, Valid, Malformed };

/// Reads environment variable `name` as an integer in [1, max] into
/// `value`: Unset when absent or empty, Malformed when not such a number.
EnvNumber readPositiveEnv(const char *name, int64_t max, int64_t *value);

} // namespace precrt

#endif // PRECRT_LIB_CORE_ENVIRONMENT_H
