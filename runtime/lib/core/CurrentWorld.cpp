//===- CurrentWorld.cpp - The world communicator of the calling rank ------===//

#include "core/CurrentWorld.h"

#include <atomic>

namespace precrt {
namespace {
thread_local Communicator *threadWorld = nullptr;
std::atomic<Communicator *> processWorld{nullptr};
} // namespace

Communicator *currentWorld() {
  return threadWorld ? threadWorld : processWorld.load();
}

void setProcessWorld(Communicator *world) { processWorld.store(world); }

CurrentWorldScope::CurrentWorldScope(Communicator *world)
    : previous_(threadWorld) {
  threadWorld = world;
}

CurrentWorldScope::~CurrentWorldScope() { threadWorld = previous_; }

} // namespace precrt
