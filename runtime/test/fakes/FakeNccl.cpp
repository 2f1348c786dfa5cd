//===- FakeNccl.cpp - NCCL for ranks that are threads, for tests ----------===//
//
// A test double of libnccl.so.2 with the entry points precrt resolves.
// Ranks must be threads of one process (precrt's thread bootstrap), buffers
// are host memory (see FakeCudaDriver.cpp), and every operation completes
// before it returns: collectives meet at a barrier of their clique and read
// each other's buffers. Reductions sum in rank order, rounding to the dtype
// at every step (with precrt's reference numerics); avg multiplies every
// input by 1/N first, as NCCL's PreMulSum does.
//
// Strict where NCCL is: every call needs a current CUDA context (checked
// with the test driver), and fp8 types are refused where data only moves.
//
// Environment: FAKE_NCCL_VERSION (default 22809, i.e. 2.28.9);
// FAKE_NCCL_GROUP_START_FAILS=1 makes ncclGroupStart fail,
// FAKE_NCCL_UNIQUE_ID_FAILS=1 ncclGetUniqueId;
// FAKE_NCCL_INIT_NEVER_COMPLETES=1 keeps every communicator from becoming
// ready, as a peer that never joins would.
// fakeNcclLastStream() tells tests which stream work was issued on.
//
//===----------------------------------------------------------------------===//

#include "DriverSymbols.h"
#include "precrt/numerics.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <dlfcn.h>
#include <link.h>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace {

using ncclResult_t = int;
/// Passed by value, as NCCL's ncclUniqueId.
struct UniqueId {
  char internal[128];
};
constexpr ncclResult_t kSuccess = 0;
constexpr ncclResult_t kInvalidArgument = 4;
constexpr ncclResult_t kInvalidUsage = 5;
constexpr ncclResult_t kInProgress = 7;

struct Clique;

struct FakeComm {
  std::shared_ptr<Clique> clique;
  int rank;
  bool aborted = false;
};

/// The ranks of one communicator.
struct Clique {
  explicit Clique(int size) : size(size), slots(size), mailboxes(size * size) {}

  struct Slot {
    const void *send;
    void *recv;
    int color, key;
  };
  struct Message {
    const void *data;
    size_t bytes;
    std::atomic<bool> *consumed;
  };

  int size;
  std::mutex mutex;
  std::condition_variable changed;
  /// Ranks that called ncclCommInitRank*: the communicator is ready, as
  /// NCCL's, once all have.
  int joined = 0;
  uint64_t generation = 0;
  int arrived = 0;
  uint64_t splits = 0;
  std::vector<Slot> slots;
  std::vector<std::deque<Message>> mailboxes; // [sender * size + receiver]

  void barrier() {
    std::unique_lock<std::mutex> lock(mutex);
    uint64_t mine = generation;
    if (++arrived == size) {
      arrived = 0;
      ++generation;
      changed.notify_all();
      return;
    }
    changed.wait(lock, [&] { return generation != mine; });
  }
};

std::mutex registryMutex;
std::map<uint64_t, std::shared_ptr<Clique>> cliquesById;
std::map<std::tuple<const Clique *, uint64_t, int>, std::shared_ptr<Clique>>
    cliquesBySplit;
std::atomic<uint64_t> nextId{1};
std::atomic<int> aborts{0};
std::atomic<int> callsWithoutContext{0};

using precrt_fakes::findDriverSymbol;

/// NCCL reads its buffers in stream order: the test NCCL, which reads them
/// when called, first runs the work the stream holds (the test driver
/// defers it), so that a stream that does not wait for the kernel writing
/// a buffer reads it unwritten, as it would on a GPU.
void takeStream(void *stream) {
  static std::atomic<void (*)(void *)> drain{nullptr};
  if (!drain.load())
    drain = reinterpret_cast<void (*)(void *)>(
        findDriverSymbol("fakeCudaDrainStream"));
  if (void (*current)(void *) = drain.load())
    current(stream);
}

/// NCCL reads and writes device memory only: a host buffer (a pointer the
/// test driver did not allocate) fails the call.
bool onDevice(const char *call, const void *buffer, size_t bytes) {
  static std::atomic<int (*)(const void *, size_t)> check{nullptr};
  if (!check.load())
    check = reinterpret_cast<int (*)(const void *, size_t)>(
        findDriverSymbol("fakeCudaIsDeviceMemory"));
  int (*current)(const void *, size_t) = check.load();
  if (!current || current(buffer, bytes))
    return true;
  std::fprintf(stderr,
               "fake NCCL: %s given %zu bytes at %p, which are not device "
               "memory\n",
               call, bytes, buffer);
  return false;
}

/// NCCL works in the calling thread's current CUDA context: a call without
/// one is counted (fakeNcclCallsWithoutContext) and fails. Without the test
/// driver loaded there is nothing to check.
bool hasContext(const char *call) {
  static std::atomic<int (*)()> depth{nullptr};
  if (!depth.load())
    depth = reinterpret_cast<int (*)()>(
        findDriverSymbol("fakeCudaThreadContextDepth"));
  int (*current)() = depth.load();
  if (!current || current() > 0)
    return true;
  ++callsWithoutContext;
  std::fprintf(stderr, "fake NCCL: %s with no current CUDA context\n", call);
  return false;
}

size_t elementSize(int type) {
  switch (type) {
  case 6:
  case 9:
    return 2;
  case 7:
    return 4;
  case 8:
    return 8;
  default:
    return 1;
  }
}

double load(const void *buffer, int type, size_t i) {
  using namespace precrt::numerics;
  const char *bytes = static_cast<const char *>(buffer);
  switch (type) {
  case 7: {
    float v;
    std::memcpy(&v, bytes + 4 * i, 4);
    return v;
  }
  case 8: {
    double v;
    std::memcpy(&v, bytes + 8 * i, 8);
    return v;
  }
  case 6:
  case 9: {
    uint16_t bits;
    std::memcpy(&bits, bytes + 2 * i, 2);
    return decode(bits, type == 6 ? kF16 : kBF16);
  }
  case 10:
    return decode(uint8_t(bytes[i]), kF8E4M3FN);
  case 11:
    return decode(uint8_t(bytes[i]), kF8E5M2);
  default:
    return uint8_t(bytes[i]);
  }
}

/// Stores `value` rounded to the dtype (f32 first for the narrow types,
/// whose values are all exact in f32).
void store(void *buffer, int type, size_t i, double value) {
  using namespace precrt::numerics;
  char *bytes = static_cast<char *>(buffer);
  float narrow = static_cast<float>(value);
  switch (type) {
  case 7:
    std::memcpy(bytes + 4 * i, &narrow, 4);
    return;
  case 8:
    std::memcpy(bytes + 8 * i, &value, 8);
    return;
  case 6:
  case 9: {
    uint16_t bits =
        uint16_t(encodeNearestEven(narrow, type == 6 ? kF16 : kBF16));
    std::memcpy(bytes + 2 * i, &bits, 2);
    return;
  }
  case 10:
    bytes[i] = char(encodeNearestEven(narrow, kF8E4M3FN));
    return;
  case 11:
    bytes[i] = char(encodeNearestEven(narrow, kF8E5M2));
    return;
  default:
    bytes[i] = char(value);
  }
}

/// Element `index` reduced over all ranks' `offset`-shifted send buffers,
/// rounded to the dtype after each step.
double reduceElement(Clique &clique, int type, int op, size_t index) {
  auto rounded = [&](double value) {
    double buffer[1];
    store(buffer, type, 0, value);
    return load(buffer, type, 0);
  };
  // ncclAvg on floating types is NCCL's PreMulSum: every input multiplied
  // by 1/N (rounded to the dtype), then summed; nothing is divided after.
  double scale = op == 4 ? rounded(1.0 / clique.size) : 1.0;
  auto input = [&](int rank) {
    double v = load(clique.slots[rank].send, type, index);
    return op == 4 ? rounded(v * scale) : v;
  };
  double acc = input(0);
  for (int rank = 1; rank < clique.size; ++rank) {
    double v = input(rank);
    if (op == 2)
      acc = std::max(acc, v);
    else if (op == 3)
      acc = std::min(acc, v);
    else
      acc = rounded(acc + v);
  }
  return acc;
}

FakeComm *unwrap(void *comm) { return static_cast<FakeComm *>(comm); }

struct PendingOp {
  bool isSend;
  const void *sendData;
  void *recvData;
  size_t bytes;
  int peer;
  FakeComm *comm;
};
thread_local int groupDepth = 0;
thread_local void *lastStream = nullptr;
thread_local int lastDataType = -1;

/// Some NCCL versions refuse fp8 types in collectives that only move data
/// (ncclAllGather); this one refuses them in all of those, so a backend
/// must move fp8 as bytes.
bool refusesFp8Move(int type, const char *call) {
  lastDataType = type;
  if (type != 10 && type != 11) // ncclFloat8e4m3, ncclFloat8e5m2
    return false;
  std::fprintf(stderr,
               "fake NCCL: %s of an fp8 type, which NCCL may refuse; move "
               "fp8 data as bytes\n",
               call);
  return true;
}
thread_local std::vector<PendingOp> pending;

ncclResult_t runPending() {
  std::vector<PendingOp> ops;
  ops.swap(pending);
  std::vector<std::unique_ptr<std::atomic<bool>>> sent;
  for (PendingOp &op : ops) {
    if (!op.isSend)
      continue;
    Clique &clique = *op.comm->clique;
    sent.push_back(std::make_unique<std::atomic<bool>>(false));
    std::lock_guard<std::mutex> lock(clique.mutex);
    clique.mailboxes[op.comm->rank * clique.size + op.peer].push_back(
        {op.sendData, op.bytes, sent.back().get()});
    clique.changed.notify_all();
  }
  for (PendingOp &op : ops) {
    if (op.isSend)
      continue;
    Clique &clique = *op.comm->clique;
    std::unique_lock<std::mutex> lock(clique.mutex);
    auto &box = clique.mailboxes[op.peer * clique.size + op.comm->rank];
    clique.changed.wait(lock, [&] { return !box.empty(); });
    Clique::Message message = box.front();
    box.pop_front();
    if (message.bytes != op.bytes)
      return kInvalidArgument;
    std::memcpy(op.recvData, message.data, op.bytes);
    message.consumed->store(true);
    clique.changed.notify_all();
  }
  for (PendingOp &op : ops) {
    if (!op.isSend)
      continue;
    Clique &clique = *op.comm->clique;
    std::unique_lock<std::mutex> lock(clique.mutex);
    clique.changed.wait(lock, [&] {
      return std::all_of(sent.begin(), sent.end(),
                         [](const auto &flag) { return flag->load(); });
    });
    break;
  }
  return kSuccess;
}

} // namespace

extern "C" {

int fakeNcclAbortCount() { return aborts.load(); }
/// Calls made with no current CUDA context, for the tests.
int fakeNcclCallsWithoutContext() { return callsWithoutContext.load(); }
/// The stream of the calling thread's last collective or send/recv.
void *fakeNcclLastStream() { return lastStream; }
/// The NCCL data type of the calling thread's last collective.
int fakeNcclLastDataType() { return lastDataType; }

ncclResult_t ncclGetVersion(int *version) {
  const char *value = std::getenv("FAKE_NCCL_VERSION");
  *version = value ? std::atoi(value) : 22809;
  return kSuccess;
}
const char *ncclGetErrorString(ncclResult_t result) {
  return result == kSuccess ? "no error" : "invalid argument (fake NCCL)";
}
const char *ncclGetLastError(void *) { return "fake NCCL"; }
ncclResult_t ncclGetUniqueId(void *id) {
  // FAKE_NCCL_UNIQUE_ID_FAILS=1: no id (as when NCCL finds no network).
  const char *fails = std::getenv("FAKE_NCCL_UNIQUE_ID_FAILS");
  if (fails && std::strcmp(fails, "1") == 0)
    return kInvalidUsage;
  std::memset(id, 0, 128);
  uint64_t value = nextId++;
  std::memcpy(id, &value, sizeof(value));
  return kSuccess;
}
/// FAKE_NCCL_INIT_NEVER_COMPLETES=1: communicators never become ready, as
/// when a peer never calls ncclCommInitRank.
bool initNeverCompletes() {
  const char *value = std::getenv("FAKE_NCCL_INIT_NEVER_COMPLETES");
  return value && std::strcmp(value, "1") == 0;
}

/// The layout of ncclConfig_t's first fields.
struct ConfigHead {
  size_t size;
  unsigned magic;
  unsigned version;
  int blocking;
};

/// Joins the clique of `id`. Blocking (NCCL's default), it returns when
/// every rank has joined, without a deadline; nonblocking, it returns
/// ncclInProgress and ncclCommGetAsyncError says when the communicator is
/// ready.
ncclResult_t ncclCommInitRankConfig(void **comm, int size, UniqueId id,
                                    int rank, const ConfigHead *config) {
  if (!hasContext("ncclCommInitRank"))
    return kInvalidUsage;
  if (config && config->magic != 0xcafebeef)
    return kInvalidArgument;
  // NCCL_CONFIG_UNDEF_INT and 1 block.
  bool blocking = !config || config->blocking != 0;
  uint64_t key;
  std::memcpy(&key, id.internal, sizeof(key));
  std::shared_ptr<Clique> clique;
  {
    std::lock_guard<std::mutex> lock(registryMutex);
    std::shared_ptr<Clique> &registered = cliquesById[key];
    if (!registered)
      registered = std::make_shared<Clique>(size);
    clique = registered;
  }
  *comm = new FakeComm{clique, rank};
  std::unique_lock<std::mutex> lock(clique->mutex);
  ++clique->joined;
  clique->changed.notify_all();
  if (!blocking)
    return clique->joined == size && !initNeverCompletes() ? kSuccess
                                                           : kInProgress;
  clique->changed.wait(
      lock, [&] { return clique->joined == size && !initNeverCompletes(); });
  return kSuccess;
}
ncclResult_t ncclCommInitRank(void **comm, int size, UniqueId id, int rank) {
  return ncclCommInitRankConfig(comm, size, id, rank, nullptr);
}
ncclResult_t ncclCommSplit(void *comm, int color, int key, void **newComm,
                           void *) {
  if (!hasContext("ncclCommSplit"))
    return kInvalidUsage;
  FakeComm &parent = *unwrap(comm);
  Clique &clique = *parent.clique;
  clique.slots[parent.rank].color = color;
  clique.slots[parent.rank].key = key;
  clique.barrier();
  std::vector<std::pair<int, int>> members; // (key, parent rank)
  for (int rank = 0; rank < clique.size; ++rank)
    if (clique.slots[rank].color == color)
      members.push_back({clique.slots[rank].key, rank});
  std::sort(members.begin(), members.end());
  int newRank = 0;
  while (members[newRank].second != parent.rank)
    ++newRank;
  {
    std::lock_guard<std::mutex> lock(registryMutex);
    std::shared_ptr<Clique> &child =
        cliquesBySplit[{&clique, clique.splits, color}];
    if (!child)
      child = std::make_shared<Clique>(int(members.size()));
    *newComm = new FakeComm{child, newRank};
    std::lock_guard<std::mutex> childLock(child->mutex);
    ++child->joined;
  }
  clique.barrier();
  if (parent.rank == 0)
    ++clique.splits;
  clique.barrier();
  return kSuccess;
}
ncclResult_t ncclCommDestroy(void *comm) {
  if (!hasContext("ncclCommDestroy"))
    return kInvalidUsage;
  delete unwrap(comm);
  return kSuccess;
}
ncclResult_t ncclCommAbort(void *comm) {
  if (!hasContext("ncclCommAbort"))
    return kInvalidUsage;
  ++aborts;
  delete unwrap(comm);
  return kSuccess;
}
ncclResult_t ncclCommGetAsyncError(void *comm, ncclResult_t *error) {
  Clique &clique = *unwrap(comm)->clique;
  std::lock_guard<std::mutex> lock(clique.mutex);
  *error = clique.joined == clique.size && !initNeverCompletes() ? kSuccess
                                                                 : kInProgress;
  return kSuccess;
}

ncclResult_t ncclAllGather(const void *send, void *recv, size_t count, int type,
                           void *comm, void *stream) {
  if (!hasContext("ncclAllGather"))
    return kInvalidUsage;
  if (refusesFp8Move(type, "ncclAllGather"))
    return kInvalidArgument;
  lastStream = stream;
  takeStream(stream);
  size_t width = count * elementSize(type);
  if (!onDevice("ncclAllGather", send, width) ||
      !onDevice("ncclAllGather", recv, width * unwrap(comm)->clique->size))
    return kInvalidArgument;
  FakeComm &me = *unwrap(comm);
  Clique &clique = *me.clique;
  size_t bytes = count * elementSize(type);
  clique.slots[me.rank].send = send;
  clique.barrier();
  for (int rank = 0; rank < clique.size; ++rank)
    std::memmove(static_cast<char *>(recv) + rank * bytes,
                 clique.slots[rank].send, bytes);
  clique.barrier();
  return kSuccess;
}
ncclResult_t ncclBroadcast(const void *send, void *recv, size_t count, int type,
                           int root, void *comm, void *stream) {
  if (!hasContext("ncclBroadcast"))
    return kInvalidUsage;
  if (refusesFp8Move(type, "ncclBroadcast"))
    return kInvalidArgument;
  lastStream = stream;
  takeStream(stream);
  if (!onDevice("ncclBroadcast", recv, count * elementSize(type)) ||
      (unwrap(comm)->rank == root &&
       !onDevice("ncclBroadcast", send, count * elementSize(type))))
    return kInvalidArgument;
  FakeComm &me = *unwrap(comm);
  Clique &clique = *me.clique;
  clique.slots[me.rank].send = send;
  clique.barrier();
  std::memmove(recv, clique.slots[root].send, count * elementSize(type));
  clique.barrier();
  return kSuccess;
}
ncclResult_t ncclAllReduce(const void *send, void *recv, size_t count, int type,
                           int op, void *comm, void *stream) {
  if (!hasContext("ncclAllReduce"))
    return kInvalidUsage;
  lastDataType = type;
  lastStream = stream;
  takeStream(stream);
  if (!onDevice("ncclAllReduce", send, count * elementSize(type)) ||
      !onDevice("ncclAllReduce", recv, count * elementSize(type)))
    return kInvalidArgument;
  FakeComm &me = *unwrap(comm);
  Clique &clique = *me.clique;
  clique.slots[me.rank].send = send;
  clique.barrier();
  std::vector<double> reduced(count);
  for (size_t i = 0; i < count; ++i)
    reduced[i] = reduceElement(clique, type, op, i);
  clique.barrier();
  for (size_t i = 0; i < count; ++i)
    store(recv, type, i, reduced[i]);
  return kSuccess;
}
ncclResult_t ncclReduceScatter(const void *send, void *recv, size_t count,
                               int type, int op, void *comm, void *stream) {
  if (!hasContext("ncclReduceScatter"))
    return kInvalidUsage;
  lastDataType = type;
  lastStream = stream;
  takeStream(stream);
  if (!onDevice("ncclReduceScatter", send,
                count * elementSize(type) * unwrap(comm)->clique->size) ||
      !onDevice("ncclReduceScatter", recv, count * elementSize(type)))
    return kInvalidArgument;
  FakeComm &me = *unwrap(comm);
  Clique &clique = *me.clique;
  clique.slots[me.rank].send = send;
  clique.barrier();
  std::vector<double> reduced(count);
  for (size_t i = 0; i < count; ++i)
    reduced[i] = reduceElement(clique, type, op, me.rank * count + i);
  clique.barrier();
  for (size_t i = 0; i < count; ++i)
    store(recv, type, i, reduced[i]);
  return kSuccess;
}
ncclResult_t ncclGroupStart() {
  // FAKE_NCCL_GROUP_START_FAILS=1: every group start fails.
  const char *fails = std::getenv("FAKE_NCCL_GROUP_START_FAILS");
  if (fails && std::strcmp(fails, "1") == 0)
    return kInvalidUsage;
  ++groupDepth;
  return kSuccess;
}
ncclResult_t ncclGroupEnd() {
  if (--groupDepth > 0)
    return kSuccess;
  return runPending();
}
ncclResult_t ncclSend(const void *data, size_t count, int type, int peer,
                      void *comm, void *stream) {
  if (!hasContext("ncclSend"))
    return kInvalidUsage;
  if (refusesFp8Move(type, "ncclSend"))
    return kInvalidArgument;
  lastStream = stream;
  takeStream(stream);
  if (!onDevice("ncclSend", data, count * elementSize(type)))
    return kInvalidArgument;
  pending.push_back(
      {true, data, nullptr, count * elementSize(type), peer, unwrap(comm)});
  return groupDepth > 0 ? kSuccess : runPending();
}
ncclResult_t ncclRecv(void *data, size_t count, int type, int peer, void *comm,
                      void *stream) {
  if (!hasContext("ncclRecv"))
    return kInvalidUsage;
  if (refusesFp8Move(type, "ncclRecv"))
    return kInvalidArgument;
  lastStream = stream;
  takeStream(stream);
  if (!onDevice("ncclRecv", data, count * elementSize(type)))
    return kInvalidArgument;
  pending.push_back(
      {false, nullptr, data, count * elementSize(type), peer, unwrap(comm)});
  return groupDepth > 0 ? kSuccess : runPending();
}

} // extern "C"
