//===- CompiledAllocator.cpp - caching allocator for generated code -------===//
//
// Freed blocks are kept and handed out again to the next request they can
// hold: a training step asks for the same buffers on every call, so after
// the first call its blocks come from the cache. Blocks are malloc'd and
// never split or merged.
//
// A request takes the smallest cached block of its size up to twice its
// size. Exact sizes alone would need a block of every size at the most
// blocks of that size ever in use at once: a step's phases use different
// sizes (activations forward, gradients backward), and with exact sizes the
// nanoGPT step of docs/performance.md needed four times its peak, so the
// cache's bound below sent blocks back to the C library on every step,
// whose pages the kernel then faulted in and zeroed again.
//
// The cache holds at most twice as many bytes as were ever in use at once,
// so the allocator never holds more than three times the program's peak; a
// block that does not fit goes back to the C library. A program whose sizes
// change from call to call thus costs at most that, not the sum of every
// size it used; one that alternates between a few functions (each with its
// own sizes) still finds all of their blocks in the cache.
//
// Each thread (a rank of a local world) also counts the bytes it asked for
// that are still in use, and their peak: the memory a rank's step needs,
// whichever thread frees its blocks, the same whichever block served it.
//
//===----------------------------------------------------------------------===//

#include "precrt/compiled.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace {

/// The blocks one thread allocated that are not yet freed. Never destroyed:
/// a block may be freed after the thread that allocated it has ended.
struct ThreadUsage {
  size_t inUseBytes = 0, peakInUseBytes = 0;
};

ThreadUsage &getThreadUsage() {
  // Every thread's record stays in this list, which is never destroyed
  // either, so that records outlive their threads and stay reachable.
  static auto *records = new std::vector<std::unique_ptr<ThreadUsage>>;
  static auto *recordsMutex = new std::mutex;
  thread_local ThreadUsage *usage = [] {
    std::lock_guard<std::mutex> lock(*recordsMutex);
    records->push_back(std::make_unique<ThreadUsage>());
    return records->back().get();
  }();
  return *usage;
}

class CachingAllocator {
public:
  static CachingAllocator &get() {
    // Never destroyed: generated code may free blocks during exit.
    static auto *allocator = new CachingAllocator;
    return *allocator;
  }

  void *allocate(size_t bytes) {
    ThreadUsage &owner = getThreadUsage();
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto block = cached.lower_bound(bytes);
      if (block != cached.end() && block->first - bytes <= bytes) {
        auto [blockBytes, data] = *block;
        cached.erase(block);
        cachedBlocks.erase(data);
        cachedBytes -= blockBytes;
        noteInUse(data, {blockBytes, bytes, &owner});
        return data;
      }
    }
    void *data = std::malloc(bytes);
    if (data) {
      std::lock_guard<std::mutex> lock(mutex);
      noteInUse(data, {bytes, bytes, &owner});
    }
    return data;
  }

  void release(void *data) {
    if (!data)
      return;
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto block = inUse.find(data);
      if (block != inUse.end()) {
        Use use = block->second;
        inUse.erase(block);
        inUseBytes -= use.blockBytes;
        use.owner->inUseBytes -= use.requestedBytes;
        if (cachedBytes + use.blockBytes <= 2 * peakInUseBytes) {
          cached.emplace(use.blockBytes, data);
          cachedBlocks.insert(data);
          cachedBytes += use.blockBytes;
          return;
        }
      } else if (cachedBlocks.count(data)) {
        // The C library would abort on this double free too; handing the
        // block out twice instead would corrupt two buffers silently.
        std::fprintf(stderr, "precrt: precrtCompiledFree: block %p freed "
                             "twice\n", data);
        std::abort();
      }
    }
    std::free(data); // not handed out here, or not worth keeping
  }

  size_t releaseCached() {
    std::multimap<size_t, void *> released;
    {
      std::lock_guard<std::mutex> lock(mutex);
      released.swap(cached);
      cachedBlocks.clear();
      cachedBytes = 0;
    }
    size_t bytes = 0;
    for (auto [size, data] : released) {
      bytes += size;
      std::free(data);
    }
    return bytes;
  }

  precrt_compiled_memory_t getThreadMemory() {
    ThreadUsage &usage = getThreadUsage();
    std::lock_guard<std::mutex> lock(mutex);
    return {usage.inUseBytes, usage.peakInUseBytes};
  }

  void resetThreadPeak() {
    ThreadUsage &usage = getThreadUsage();
    std::lock_guard<std::mutex> lock(mutex);
    usage.peakInUseBytes = usage.inUseBytes;
  }

private:
  /// A block handed out: its size, the size asked for, and the usage of the
  /// thread that asked.
  struct Use {
    size_t blockBytes, requestedBytes;
    ThreadUsage *owner;
  };

  void noteInUse(void *data, Use use) {
    inUse.emplace(data, use);
    inUseBytes += use.blockBytes;
    if (inUseBytes > peakInUseBytes)
      peakInUseBytes = inUseBytes;
    ThreadUsage &owner = *use.owner;
    owner.inUseBytes += use.requestedBytes;
    if (owner.inUseBytes > owner.peakInUseBytes)
      owner.peakInUseBytes = owner.inUseBytes;
  }

  std::mutex mutex;
  /// Freed blocks by size, and the same blocks as a set.
  std::multimap<size_t, void *> cached;
  std::unordered_set<void *> cachedBlocks;
  /// Blocks handed out and not yet freed.
  std::unordered_map<void *, Use> inUse;
  size_t cachedBytes = 0, inUseBytes = 0, peakInUseBytes = 0;
};

} // namespace

void *precrtCompiledAlloc(size_t bytes) {
  return CachingAllocator::get().allocate(bytes);
}

void precrtCompiledFree(void *data) { CachingAllocator::get().release(data); }

size_t precrtCompiledReleaseCached(void) {
  return CachingAllocator::get().releaseCached();
}

void precrtCompiledGetMemory(precrt_compiled_memory_t *memory) {
  *memory = CachingAllocator::get().getThreadMemory();
}

void precrtCompiledResetPeakMemory(void) {
  CachingAllocator::get().resetThreadPeak();
}
