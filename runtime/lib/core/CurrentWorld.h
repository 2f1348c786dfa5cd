//===- CurrentWorld.h - The world communicator of the calling rank -*- C++ -*-===//

#ifndef PRECRT_LIB_CORE_CURRENTWORLD_H
#define PRECRT_LIB_CORE_CURRENTWORLD_H

namespace precrt {

class Communicator;

/// The calling thread's world: the thread's own while a local rank runs,
/// otherwise the process world of precrtInit.
Communicator *currentWorld();
void setProcessWorld(Communicator *world);

/// Makes `world` the calling thread's world for the scope's lifetime.
class CurrentWorldScope {
public:
  explicit CurrentWorldScope(Communicator *world);
  ~CurrentWorldScope();
  CurrentWorldScope(const CurrentWorldScope &) = delete;
  CurrentWorldScope &operator=(const CurrentWorldScope &) = delete;

private:
  Communicator *previous_;
};

} // namespace precrt

#endif // PRECRT_LIB_CORE_CURRENTWORLD_H
