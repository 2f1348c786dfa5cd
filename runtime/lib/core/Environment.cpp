//===- Environment.cpp - Settings read from environment variables ---------===//

#include "core/Environment.h"

#include <cstdlib>

namespace precrt {

EnvNumber readPositiveEnv(const char *name, int64_t max, int64_t *value) {
  const char *text = std::getenv(name);
  if (!text || !*text)
    return EnvNumber::Unset;
  char *end = nullptr;
  long long parsed = std::strtoll(text, &end, 10);
  if (*end != '\0' || parsed <= 0 || parsed > max)
    return EnvNumber::Malformed;
  *value = parsed;
  return EnvNumber::Valid;
}

} // namespace precrt
