//===- FakeCudaDriver.cpp - A host-memory CUDA driver for tests -----------===//
//
// A test double of libcuda.so.1 with the entry points precrt resolves, so
// that the dlopen layer, precrt/gpu.h, the mgpu* wrappers and the NCCL
// backend run on machines without a GPU. "Device" memory is host memory,
// stream operations run in stream order when something waits for them
// (see FakeStream), and a kernel is a host function
// `void kernel(void **params, EmulatedLaunch *launch)` whose address is the
// CUfunction: the kernels of prec-lower-to-cuda-emulation
// (prec-emulate-gpu-kernels), which loop over the launch's blocks and
// threads themselves. Four devices.
//
// Strict where CUDA is: a launch beyond CUDA's grid and block limits fails
// with CUDA_ERROR_INVALID_VALUE, and a kernel given a buffer that is not
// inside one live device allocation (cuMemAlloc*) fails its launch with
// CUDA_ERROR_ILLEGAL_ADDRESS, naming the buffer on stderr, and runs no
// thread.
//
// Each device is a "Fake H100" of compute capability 9.0 with 132
// multiprocessors of 2048 resident threads and memory pools.
//
// Environment: FAKE_CUDA_DRIVER_VERSION (default 12080) is what
// cuDriverGetVersion reports; FAKE_CUDA_STREAM_NEVER_DONE=1 makes
// cuStreamQuery answer CUDA_ERROR_NOT_READY forever (a hung kernel);
// FAKE_CUDA_DEVICE_COUNT (default 4) is the number of devices;
// FAKE_CUDA_MEMORY_POOLS=0 makes the devices lack stream-ordered allocation;
// FAKE_CUDA_COMPUTE_CAPABILITY (default 9.0) is every device's;
// FAKE_CUDA_REJECT_EMULATED_KERNELS=1 answers emulated kernels as a real
// driver would: their marker module (an image that starts with
// "prec-emulated-kernels", which the emulated code loads before its first
// launch) is an invalid image, and a launch of one fails, saying so.
//
// Tests read the order of stream operations from a per-thread log
// (fakeCudaCallLog): one line per event record, stream wait, stream query
// and allocation, naming streams and events by address.
//
//===----------------------------------------------------------------------===//

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace {
using CUresult = int;
constexpr CUresult kSuccess = 0;
constexpr CUresult kInvalidValue = 1;
constexpr CUresult kInvalidImage = 200;
constexpr CUresult kInvalidContext = 201;
constexpr CUresult kNotFound = 500;
constexpr CUresult kNotReady = 600;
constexpr CUresult kIllegalAddress = 700;

/// Work runs in stream order, when something waits for it (a stream or
/// event synchronization or query, a stream wait on an event, NCCL taking
/// the stream), not when it is issued: a missing wait shows up as work
/// that has not run yet.
struct FakeStream {
  std::recursive_mutex mutex;
  std::deque<std::function<void()>> queue;
  /// A failed kernel's error, reported by every later synchronization.
  CUresult error = 0;
};
struct FakeEvent {
  /// Sequence numbers of the latest record issued and completed.
  std::atomic<uint64_t> recorded{0}, completed{0};
  std::atomic<FakeStream *> stream{nullptr};
};

/// Runs the stream's work in order; work may run other streams' (a wait).
void drain(FakeStream *stream) {
  if (!stream)
    return;
  std::lock_guard<std::recursive_mutex> lock(stream->mutex);
  while (!stream->queue.empty()) {
    std::function<void()> work = std::move(stream->queue.front());
    stream->queue.pop_front();
    work();
  }
}

/// Issues `work` on `stream`; the legacy default stream runs it at once.
void enqueue(void *stream, std::function<void()> work) {
  if (!stream) {
    work();
    return;
  }
  auto *fake = static_cast<FakeStream *>(stream);
  std::lock_guard<std::recursive_mutex> lock(fake->mutex);
  fake->queue.push_back(std::move(work));
}
struct FakeModule {
  int unused;
};

std::atomic<int> contextDepth{0};
/// Contexts pushed on this thread: CUDA's context stack is per thread, and
/// every call below that needs a context fails without one, as CUDA's do.
thread_local int threadContextDepth = 0;

CUresult requireContext(const char *call) {
  if (threadContextDepth > 0)
    return kSuccess;
  std::fprintf(stderr, "fake CUDA driver: %s with no current context\n", call);
  return kInvalidContext;
}

#define REQUIRE_CONTEXT(call)                                                  \
  if (CUresult noContext = requireContext(call))                               \
    return noContext;
std::atomic<int> liveStreams{0};
std::atomic<int> liveEvents{0};

bool streamNeverDone() {
  const char *value = std::getenv("FAKE_CUDA_STREAM_NEVER_DONE");
  return value && std::strcmp(value, "1") == 0;
}

bool rejectsEmulatedKernels() {
  const char *value = std::getenv("FAKE_CUDA_REJECT_EMULATED_KERNELS");
  return value && std::strcmp(value, "1") == 0;
}

int deviceCount() {
  const char *value = std::getenv("FAKE_CUDA_DEVICE_COUNT");
  return value ? std::atoi(value) : 4;
}

thread_local std::string callLog;

/// Live device allocations, start -> bytes.
std::mutex allocationsMutex;
std::map<uintptr_t, size_t> allocations;

/// Device memory still allocated when the driver is unloaded (at exit) is
/// released, as a process's device memory is when it ends: precrt keeps a
/// gemm workspace per device for the life of the process.
struct ReleaseAtUnload {
  ~ReleaseAtUnload() {
    std::lock_guard<std::mutex> lock(allocationsMutex);
    for (const auto &allocation : allocations)
      std::free(reinterpret_cast<void *>(allocation.first));
    allocations.clear();
  }
} releaseAtUnload;

void *allocateDevice(size_t bytes) {
  // Never empty, so that every allocation has an address of its own.
  void *memory = std::malloc(bytes ? bytes : 1);
  if (memory) {
    std::lock_guard<std::mutex> lock(allocationsMutex);
    allocations[reinterpret_cast<uintptr_t>(memory)] = bytes;
  }
  return memory;
}

void freeDevice(unsigned long long pointer) {
  {
    std::lock_guard<std::mutex> lock(allocationsMutex);
    allocations.erase(uintptr_t(pointer));
  }
  std::free(reinterpret_cast<void *>(uintptr_t(pointer)));
}

/// Whether [start, start + bytes) lies in one live device allocation.
bool isDeviceMemory(uintptr_t start, size_t bytes) {
  std::lock_guard<std::mutex> lock(allocationsMutex);
  auto next = allocations.upper_bound(start);
  if (next == allocations.begin())
    return false;
  auto allocation = std::prev(next);
  return start - allocation->first <= allocation->second &&
         bytes <= allocation->second - (start - allocation->first);
}

/// Whether the byte at `start` lies in a live device allocation.
bool startsInDeviceMemory(uintptr_t start) {
  std::lock_guard<std::mutex> lock(allocationsMutex);
  auto next = allocations.upper_bound(start);
  if (next == allocations.begin())
    return false;
  auto allocation = std::prev(next);
  return start - allocation->first < allocation->second;
}

/// Appends "name a b" to the thread's log, the operands as addresses.
void logCall(const char *name, const void *first, const void *second) {
  char line[128];
  std::snprintf(line, sizeof(line), "%s %p %p\n", name, first, second);
  callLog += line;
}
} // namespace

extern "C" {

/// What a kernel receives besides its parameters: the launch's sizes and
/// the check it runs on every buffer argument before any thread does
/// (prec-emulate-gpu-kernels writes the loads of these fields).
struct EmulatedLaunch {
  int64_t grid[3];
  int64_t block[3];
  int32_t (*inDeviceMemory)(EmulatedLaunch *launch, int64_t start,
                            int64_t bytes);
  void (*outOfBounds)(const char *message);
  bool failed;
};

/// A kernel's access outside its buffer: on a GPU a memory fault that
/// ends the context; here the process, after saying which kernel.
[[noreturn]] static void emulatedLaunchOutOfBounds(const char *message) {
  std::fprintf(stderr, "fake CUDA driver: %s\n", message);
  std::abort();
}

/// Whether `bytes` at `start` are device memory; if not, the launch fails.
static int32_t emulatedLaunchInDeviceMemory(EmulatedLaunch *launch,
                                            int64_t start, int64_t bytes) {
  if (bytes == 0 || isDeviceMemory(uintptr_t(start), size_t(bytes)))
    return 1;
  std::fprintf(stderr,
               "fake CUDA driver: a kernel was given %lld bytes at %p, which "
               "are not inside a device allocation\n",
               static_cast<long long>(bytes),
               reinterpret_cast<void *>(uintptr_t(start)));
  launch->failed = true;
  return 0;
}

/// Marks the driver as the one prec-lower-to-cuda-emulation's kernels run
/// on; prec-run looks for it.
int fakeCudaRunsEmulatedKernels() { return 1; }

/// Kernels the tests launch: writes params[1] (an int) into the int that
/// params[0] points to.
void fakeCudaStoreKernel(void **params, EmulatedLaunch *) {
  int *target = *static_cast<int **>(params[0]);
  *target = *static_cast<int *>(params[1]);
}

CUresult cuDriverGetVersion(int *version) {
  const char *value = std::getenv("FAKE_CUDA_DRIVER_VERSION");
  *version = value ? std::atoi(value) : 12080;
  return kSuccess;
}
CUresult cuInit(unsigned) { return kSuccess; }
CUresult cuGetErrorName(CUresult result, const char **name) {
  switch (result) {
  case kInvalidValue:
    *name = "CUDA_ERROR_INVALID_VALUE";
    return kSuccess;
  case kInvalidImage:
    *name = "CUDA_ERROR_INVALID_IMAGE";
    return kSuccess;
  case kNotFound:
    *name = "CUDA_ERROR_NOT_FOUND";
    return kSuccess;
  case kInvalidContext:
    *name = "CUDA_ERROR_INVALID_CONTEXT";
    return kSuccess;
  case kIllegalAddress:
    *name = "CUDA_ERROR_ILLEGAL_ADDRESS";
    return kSuccess;
  default:
    *name = nullptr;
    return kInvalidValue;
  }
}
CUresult cuGetErrorString(CUresult result, const char **text) {
  *text = result == kInvalidImage ? "device kernel image is invalid"
                                  : "fake driver error";
  return kSuccess;
}
/// The calling thread's log since the last call, which clears it.
const char *fakeCudaCallLog() {
  static thread_local std::string taken;
  taken.swap(callLog);
  callLog.clear();
  return taken.c_str();
}

CUresult cuDeviceGetCount(int *count) {
  *count = deviceCount();
  return kSuccess;
}
CUresult cuDeviceGet(int *device, int ordinal) {
  if (ordinal < 0 || ordinal >= deviceCount())
    return kInvalidValue;
  *device = ordinal;
  return kSuccess;
}
CUresult cuDeviceGetName(char *name, int length, int device) {
  std::snprintf(name, size_t(length), "Fake H100 #%d", device);
  return kSuccess;
}
CUresult cuDeviceGetAttribute(int *value, int attribute, int) {
  switch (attribute) {
  case 16: // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
    *value = 132;
    return kSuccess;
  case 39: // CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR
    *value = 2048;
    return kSuccess;
  case 75:   // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
  case 76: { // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
    const char *capability = std::getenv("FAKE_CUDA_COMPUTE_CAPABILITY");
    int major = 9, minor = 0;
    if (capability)
      std::sscanf(capability, "%d.%d", &major, &minor);
    *value = attribute == 75 ? major : minor;
    return kSuccess;
  }
  case 97: // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
    *value = 227 * 1024;
    return kSuccess;
  case 115: { // CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED
    const char *pools = std::getenv("FAKE_CUDA_MEMORY_POOLS");
    *value = pools && std::strcmp(pools, "0") == 0 ? 0 : 1;
    return kSuccess;
  }
  default:
    return kInvalidValue;
  }
}
CUresult cuDevicePrimaryCtxRetain(void **context, int device) {
  *context = reinterpret_cast<void *>(uintptr_t(0x1000 + device));
  return kSuccess;
}
CUresult cuCtxPushCurrent_v2(void *) {
  ++contextDepth;
  ++threadContextDepth;
  return kSuccess;
}
CUresult cuCtxPopCurrent_v2(void **) {
  if (threadContextDepth == 0)
    return kInvalidContext;
  --contextDepth;
  --threadContextDepth;
  return kSuccess;
}
/// Balance of context pushes and pops over all threads, for the tests.
int fakeCudaContextDepth() { return contextDepth.load(); }
/// Contexts pushed on the calling thread (the test NCCL asks too).
int fakeCudaThreadContextDepth() { return threadContextDepth; }

CUresult cuModuleLoadData(void **module, const void *image) {
  REQUIRE_CONTEXT("cuModuleLoadData");
  // Accepts only images that start with "FAKECUBIN", and the marker of
  // emulated kernels.
  const char *text = static_cast<const char *>(image);
  bool isMarker = std::strncmp(text, "prec-emulated-kernels", 21) == 0;
  if (isMarker ? rejectsEmulatedKernels()
               : std::strncmp(text, "FAKECUBIN", 9) != 0)
    return kInvalidImage;
  *module = new FakeModule();
  return kSuccess;
}
CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned count,
                            int *options, void **values) {
  REQUIRE_CONTEXT("cuModuleLoadDataEx");
  if (std::strncmp(static_cast<const char *>(image), "FAKEPTX", 7) == 0) {
    *module = new FakeModule();
    return kSuccess;
  }
  for (unsigned i = 0; i < count; ++i)
    if (options[i] == 5) // CU_JIT_ERROR_LOG_BUFFER
      std::strcpy(static_cast<char *>(values[i]), "ptxas fatal: not PTX");
  return kInvalidImage;
}
CUresult cuModuleUnload(void *module) {
  REQUIRE_CONTEXT("cuModuleUnload");
  delete static_cast<FakeModule *>(module);
  return kSuccess;
}
CUresult cuModuleGetFunction(void **function, void *, const char *name) {
  REQUIRE_CONTEXT("cuModuleGetFunction");
  if (std::strcmp(name, "store") != 0)
    return kNotFound;
  *function = reinterpret_cast<void *>(&fakeCudaStoreKernel);
  return kSuccess;
}
CUresult cuFuncSetAttribute(void *, int, int) {
  REQUIRE_CONTEXT("cuFuncSetAttribute");
  return kSuccess;
}
/// The key in `extra` before the sizes of the parameters that
/// prec-emulate-gpu-kernels passes ({key, {count, size...}, end}).
constexpr uintptr_t kEmulatedParamSizes = 0x50524543;

/// Issues `function` on `stream` as CUDA would launch it, or says why CUDA
/// would not. Parameters are copied at the launch when `extra` gives their
/// sizes (the emulated kernels); otherwise the kernel runs at once.
static CUresult launch(void *function, const unsigned grid[3],
                       const unsigned block[3], void *stream, void **params,
                       void **extra) {
  // CUDA's limits (compute capability 9.0).
  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0 || grid[0] > 2147483647u ||
      grid[1] > 65535 || grid[2] > 65535 || block[0] == 0 || block[1] == 0 ||
      block[2] == 0 || block[0] > 1024 || block[1] > 1024 || block[2] > 64 ||
      uint64_t(block[0]) * block[1] * block[2] > 1024) {
    std::fprintf(stderr,
                 "fake CUDA driver: launch of %u x %u x %u blocks of %u x %u "
                 "x %u threads is outside CUDA's limits\n",
                 grid[0], grid[1], grid[2], block[0], block[1], block[2]);
    return kInvalidValue;
  }
  EmulatedLaunch shape{{grid[0], grid[1], grid[2]},
                       {block[0], block[1], block[2]},
                       &emulatedLaunchInDeviceMemory,
                       &emulatedLaunchOutOfBounds,
                       false};
  auto kernel = reinterpret_cast<void (*)(void **, EmulatedLaunch *)>(function);
  if (!extra || reinterpret_cast<uintptr_t>(extra[0]) != kEmulatedParamSizes) {
    kernel(params, &shape);
    return shape.failed ? kIllegalAddress : kSuccess;
  }
  if (rejectsEmulatedKernels()) {
    std::fprintf(stderr, "fake CUDA driver: launch of an emulated kernel on "
                         "a driver that rejects them\n");
    return kInvalidValue;
  }
  const auto *sizes = static_cast<const int64_t *>(extra[1]);
  auto values = std::make_shared<std::vector<std::vector<char>>>();
  for (int64_t i = 0; i < sizes[0]; ++i) {
    const char *value = static_cast<const char *>(params[i]);
    values->emplace_back(value, value + sizes[i + 1]);
  }
  enqueue(stream, [kernel, shape, values, stream]() mutable {
    std::vector<void *> copied;
    for (std::vector<char> &value : *values)
      copied.push_back(value.data());
    kernel(copied.data(), &shape);
    if (shape.failed && stream)
      static_cast<FakeStream *>(stream)->error = kIllegalAddress;
  });
  return !stream && shape.failed ? kIllegalAddress : kSuccess;
}

CUresult cuLaunchKernel(void *function, unsigned gridX, unsigned gridY,
                        unsigned gridZ, unsigned blockX, unsigned blockY,
                        unsigned blockZ, unsigned, void *stream, void **params,
                        void **extra) {
  REQUIRE_CONTEXT("cuLaunchKernel");
  const unsigned grid[3] = {gridX, gridY, gridZ};
  const unsigned block[3] = {blockX, blockY, blockZ};
  return launch(function, grid, block, stream, params, extra);
}
/// The layout of cuda.h's CUlaunchConfig and CUlaunchAttribute.
struct FakeLaunchAttribute {
  int id;
  char pad[4];
  unsigned value[16];
};
struct FakeLaunchConfig {
  unsigned grid[3], block[3], sharedMemBytes;
  void *stream;
  FakeLaunchAttribute *attrs;
  unsigned numAttrs;
};
static unsigned lastClusterSize = 0;

/// Blocks per cluster of the last cuLaunchKernelEx, for the tests.
unsigned fakeCudaLastClusterSize() { return lastClusterSize; }

CUresult cuLaunchKernelEx(const FakeLaunchConfig *config, void *function,
                          void **params, void **extra) {
  REQUIRE_CONTEXT("cuLaunchKernelEx");
  lastClusterSize = 0;
  for (unsigned i = 0; i < config->numAttrs; ++i)
    if (config->attrs[i].id == 4) // CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
      lastClusterSize = config->attrs[i].value[0] * config->attrs[i].value[1] *
                        config->attrs[i].value[2];
  return launch(function, config->grid, config->block, config->stream, params,
                extra);
}

/// Streams and events created and not yet destroyed, for the tests.
int fakeCudaLiveStreams() { return liveStreams.load(); }
int fakeCudaLiveEvents() { return liveEvents.load(); }

CUresult cuStreamCreate(void **stream, unsigned) {
  REQUIRE_CONTEXT("cuStreamCreate");
  *stream = new FakeStream();
  ++liveStreams;
  return kSuccess;
}
/// Work still pending is dropped: CUDA would run it on the device, but the
/// test driver's kernels are host code that may be gone by then (a step that
/// failed is not waited for, and its JIT-compiled kernels are freed before
/// the thread's stream is destroyed at exit).
CUresult cuStreamDestroy_v2(void *stream) {
  REQUIRE_CONTEXT("cuStreamDestroy_v2");
  delete static_cast<FakeStream *>(stream);
  --liveStreams;
  return kSuccess;
}
CUresult cuStreamSynchronize(void *stream) {
  REQUIRE_CONTEXT("cuStreamSynchronize");
  if (!stream)
    return kSuccess;
  drain(static_cast<FakeStream *>(stream));
  return static_cast<FakeStream *>(stream)->error;
}
CUresult cuStreamQuery(void *stream) {
  REQUIRE_CONTEXT("cuStreamQuery");
  logCall("cuStreamQuery", stream, nullptr);
  if (streamNeverDone())
    return kNotReady;
  if (!stream)
    return kSuccess;
  drain(static_cast<FakeStream *>(stream));
  return static_cast<FakeStream *>(stream)->error;
}
CUresult cuStreamWaitEvent(void *stream, void *event, unsigned) {
  REQUIRE_CONTEXT("cuStreamWaitEvent");
  logCall("cuStreamWaitEvent", stream, event);
  // The wait captures the event's latest record, as CUDA's does.
  auto *fake = static_cast<FakeEvent *>(event);
  uint64_t sequence = fake->recorded.load();
  FakeStream *recording = fake->stream.load();
  enqueue(stream, [fake, sequence, recording] {
    if (fake->completed.load() < sequence)
      drain(recording);
  });
  return kSuccess;
}
CUresult cuEventCreate(void **event, unsigned) {
  REQUIRE_CONTEXT("cuEventCreate");
  *event = new FakeEvent();
  ++liveEvents;
  return kSuccess;
}
CUresult cuEventDestroy_v2(void *event) {
  REQUIRE_CONTEXT("cuEventDestroy_v2");
  delete static_cast<FakeEvent *>(event);
  --liveEvents;
  return kSuccess;
}
CUresult cuEventRecord(void *event, void *stream) {
  REQUIRE_CONTEXT("cuEventRecord");
  logCall("cuEventRecord", event, stream);
  auto *fake = static_cast<FakeEvent *>(event);
  uint64_t sequence = ++fake->recorded;
  fake->stream = static_cast<FakeStream *>(stream);
  enqueue(stream, [fake, sequence] {
    uint64_t done = fake->completed.load();
    while (done < sequence &&
           !fake->completed.compare_exchange_weak(done, sequence)) {
    }
  });
  return kSuccess;
}
CUresult cuEventSynchronize(void *event) {
  REQUIRE_CONTEXT("cuEventSynchronize");
  drain(static_cast<FakeEvent *>(event)->stream.load());
  return kSuccess;
}
CUresult cuMemAlloc_v2(unsigned long long *ptr, size_t bytes) {
  REQUIRE_CONTEXT("cuMemAlloc_v2");
  *ptr = reinterpret_cast<uintptr_t>(allocateDevice(bytes));
  logCall("cuMemAlloc", reinterpret_cast<void *>(uintptr_t(*ptr)), nullptr);
  return *ptr ? kSuccess : kInvalidValue;
}
CUresult cuMemAllocManaged(unsigned long long *ptr, size_t bytes, unsigned) {
  REQUIRE_CONTEXT("cuMemAllocManaged");
  return cuMemAlloc_v2(ptr, bytes);
}
CUresult cuMemFree_v2(unsigned long long ptr) {
  REQUIRE_CONTEXT("cuMemFree_v2");
  logCall("cuMemFree", reinterpret_cast<void *>(uintptr_t(ptr)), nullptr);
  freeDevice(ptr);
  return kSuccess;
}
CUresult cuMemAllocAsync(unsigned long long *ptr, size_t bytes, void *stream) {
  REQUIRE_CONTEXT("cuMemAllocAsync");
  *ptr = reinterpret_cast<uintptr_t>(allocateDevice(bytes));
  logCall("cuMemAllocAsync", reinterpret_cast<void *>(uintptr_t(*ptr)), stream);
  return *ptr ? kSuccess : kInvalidValue;
}
CUresult cuMemFreeAsync(unsigned long long ptr, void *stream) {
  REQUIRE_CONTEXT("cuMemFreeAsync");
  logCall("cuMemFreeAsync", reinterpret_cast<void *>(uintptr_t(ptr)), stream);
  enqueue(stream, [ptr] { freeDevice(ptr); });
  return kSuccess;
}
/// Device destinations are written in stream order. A host destination
/// (pageable memory) is written when the call returns, after the stream's
/// earlier work, and a host source is read when the call is made, as CUDA
/// does for pageable memory.
CUresult cuMemcpyAsync(unsigned long long dst, unsigned long long src,
                       size_t bytes, void *stream) {
  REQUIRE_CONTEXT("cuMemcpyAsync");
  void *to = reinterpret_cast<void *>(uintptr_t(dst));
  const void *from = reinterpret_cast<const void *>(uintptr_t(src));
  // A copy that starts in a device allocation and runs past its end.
  for (uintptr_t end : {uintptr_t(dst), uintptr_t(src)})
    if (startsInDeviceMemory(end) && !isDeviceMemory(end, bytes)) {
      std::fprintf(stderr,
                   "fake CUDA driver: cuMemcpyAsync of %zu bytes at %p runs "
                   "past the end of its device allocation\n",
                   bytes, reinterpret_cast<void *>(end));
      return kInvalidValue;
    }
  if (!isDeviceMemory(uintptr_t(dst), bytes)) {
    if (stream)
      drain(static_cast<FakeStream *>(stream));
    std::memmove(to, from, bytes);
    return kSuccess;
  }
  if (!isDeviceMemory(uintptr_t(src), bytes)) {
    auto staged = std::make_shared<std::vector<char>>(
        static_cast<const char *>(from),
        static_cast<const char *>(from) + bytes);
    enqueue(stream,
            [to, staged] { std::memcpy(to, staged->data(), staged->size()); });
    return kSuccess;
  }
  enqueue(stream, [to, from, bytes] { std::memmove(to, from, bytes); });
  return kSuccess;
}
CUresult cuMemsetD32Async(unsigned long long dst, unsigned value, size_t count,
                          void *stream) {
  REQUIRE_CONTEXT("cuMemsetD32Async");
  auto *words = reinterpret_cast<uint32_t *>(uintptr_t(dst));
  enqueue(stream, [words, value, count] {
    for (size_t i = 0; i < count; ++i)
      words[i] = value;
  });
  return kSuccess;
}
CUresult cuMemsetD16Async(unsigned long long dst, unsigned short value,
                          size_t count, void *stream) {
  REQUIRE_CONTEXT("cuMemsetD16Async");
  auto *halves = reinterpret_cast<uint16_t *>(uintptr_t(dst));
  enqueue(stream, [halves, value, count] {
    for (size_t i = 0; i < count; ++i)
      halves[i] = value;
  });
  return kSuccess;
}
/// Whether `bytes` at `pointer` lie in one live device allocation (the test
/// NCCL refuses other buffers, as NCCL faults on them).
int fakeCudaIsDeviceMemory(const void *pointer, size_t bytes) {
  return bytes == 0 ||
         isDeviceMemory(reinterpret_cast<uintptr_t>(pointer), bytes);
}
/// Runs the work issued on `stream` so far (the test NCCL, which reads its
/// buffers when it is called, takes the stream this way first).
void fakeCudaDrainStream(void *stream) {
  drain(static_cast<FakeStream *>(stream));
}
/// Enqueues `work(data)` on `stream`, in stream order with the driver's own
/// work (the test cuBLASLt runs its gemms this way).
void fakeCudaEnqueue(void *stream, void (*work)(void *), void *data) {
  enqueue(stream, [work, data] { work(data); });
}
CUresult cuMemHostRegister_v2(void *, size_t, unsigned) { return kSuccess; }
CUresult cuMemHostUnregister(void *) { return kSuccess; }

} // extern "C"
