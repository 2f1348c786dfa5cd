//===- CommunicationThread.cpp - A rank's thread for started transports ---===//

#include "core/CommunicationThread.h"

#include "core/CurrentWorld.h"
#include "gpu/GpuContext.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace precrt {
namespace communication_thread {
namespace {

struct Worker {
  uint64_t id = 0;
  Communicator *world = nullptr;
  std::thread thread;
  std::mutex mutex;
  /// Signals both new work and idleness.
  std::condition_variable changed;
  std::deque<std::pair<int, std::function<void()>>> queue;
  bool running = false;
  bool stopping = false;

  void loop();
  void waitUntilIdle() {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return queue.empty() && !running; });
  }
  bool stopped() {
    std::lock_guard<std::mutex> lock(mutex);
    return stopping;
  }
  void stopAndJoin() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    changed.notify_all();
    if (thread.joinable())
      thread.join();
  }
};

thread_local bool isCommunicationThread = false;

void Worker::loop() {
  isCommunicationThread = true;
  CurrentWorldScope scope(world);
  std::unique_lock<std::mutex> lock(mutex);
  for (;;) {
    changed.wait(lock, [&] { return stopping || !queue.empty(); });
    if (queue.empty())
      return; // stopping, and everything queued has run
    auto [device, work] = std::move(queue.front());
    queue.pop_front();
    running = true;
    lock.unlock();
    cuda::setCurrentDevice(device);
    work();
    work = nullptr;
    lock.lock();
    running = false;
    changed.notify_all();
  }
}

/// Every live worker, for endWorld from another thread (precrtFinalize).
std::mutex registryMutex;
std::vector<Worker *> &registry() {
  static auto *workers = new std::vector<Worker *>();
  return *workers;
}
std::atomic<uint64_t> nextId{1};

/// The calling thread's worker; a plain pointer, readable while the
/// thread's other thread_locals are destroyed.
thread_local Worker *threadWorker = nullptr;

/// Owns the calling thread's worker and joins it at thread exit.
struct Owner {
  std::unique_ptr<Worker> worker;
  ~Owner() { release(); }
  void release() {
    if (!worker)
      return;
    {
      std::lock_guard<std::mutex> lock(registryMutex);
      auto &workers = registry();
      workers.erase(std::remove(workers.begin(), workers.end(), worker.get()),
                    workers.end());
    }
    worker->stopAndJoin();
    worker.reset();
    threadWorker = nullptr;
  }
};
thread_local Owner owner;

} // namespace

uint64_t submit(Communicator *world, int device, std::function<void()> work) {
  if (threadWorker && (threadWorker->world != world || threadWorker->stopped()))
    owner.release();
  if (!threadWorker) {
    auto worker = std::make_unique<Worker>();
    worker->id = nextId++;
    worker->world = world;
    Worker *raw = worker.get();
    worker->thread = std::thread([raw] { raw->loop(); });
    {
      std::lock_guard<std::mutex> lock(registryMutex);
      registry().push_back(raw);
    }
    owner.worker = std::move(worker);
    threadWorker = raw;
  }
  {
    std::lock_guard<std::mutex> lock(threadWorker->mutex);
    threadWorker->queue.emplace_back(device, std::move(work));
  }
  threadWorker->changed.notify_all();
  return threadWorker->id;
}

void waitUntilIdle() {
  if (threadWorker && !isCommunicationThread)
    threadWorker->waitUntilIdle();
}

uint64_t currentId() { return threadWorker ? threadWorker->id : 0; }

void endWorld(Communicator *world) {
  if (!world || isCommunicationThread)
    return;
  if (threadWorker && threadWorker->world == world) {
    owner.release();
    return;
  }
  // Another thread's (a process world finalized by another thread than the
  // one that started transports on it): joined here, its owner finds it
  // stopped and replaces it on its next start.
  std::lock_guard<std::mutex> lock(registryMutex);
  for (Worker *worker : registry())
    if (worker->world == world) {
      worker->waitUntilIdle();
      worker->stopAndJoin();
    }
}

void endCallingThread() {
  if (threadWorker)
    owner.release();
}

bool onCommunicationThread() { return isCommunicationThread; }

} // namespace communication_thread
} // namespace precrt
