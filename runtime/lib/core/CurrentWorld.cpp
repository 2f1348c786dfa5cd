//===- CurrentWorld.cpp - The world communicator of the calling rank ------===//

#include "core/CurrentWorld.h"

#include "core/CommunicationThread.h"

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

// The rank's world ends with the scope: what its communication thread still
// has queued runs on it first.
CurrentWorldScope::~CurrentWorldScope() {
  communication_thread::endWorld(threadWorld);
  threadWorld = previous_;
}

} // namespace precrt
