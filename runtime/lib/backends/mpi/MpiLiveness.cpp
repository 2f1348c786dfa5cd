//===- MpiLiveness.cpp - Failure detection of the MPI backend -------------===//

#include "backends/mpi/MpiLiveness.h"

#include <utility>

namespace precrt {
namespace mpi {

std::string peerLeft(int peer, const ExitNotice &notice,
                     const std::string &what) {
  std::string reason = " exited";
  if (notice.gaveUp && notice.lostPeer >= 0)
    reason = " gave up waiting for rank " + std::to_string(notice.lostPeer);
  else if (notice.gaveUp)
    reason = " gave up after a failure of its own";
  return "rank " + std::to_string(peer) + reason +
         " while the others waited in " + what;
}

std::string peerLost(int peer, const std::string &what, int64_t replyMs) {
  return "rank " + std::to_string(peer) + " stopped answering while the " +
         "others waited in " + what + ": no reply to a liveness check in " +
         std::to_string(replyMs) + " ms (the process died or hangs)";
}

namespace {
/// See recordLostProcess.
std::string lostProcessReason;
} // namespace

void recordLostProcess(int mpiRank) {
  if (lostProcessReason.empty())
    lostProcessReason =
        "MPI_COMM_WORLD rank " + std::to_string(mpiRank) + " stopped answering";
}

const std::string &lostProcess() { return lostProcessReason; }

void Liveness::start(MPI_Comm comm, int size) {
  comm_ = comm;
  lastAnswer_.assign(size, kNever);
}

void Liveness::poll() {
  if (comm_ == MPI_COMM_NULL)
    return;
  for (int kind : {kPing, kPong}) {
    for (;;) {
      int found = 0;
      MPI_Status status;
      if (MPI_Iprobe(MPI_ANY_SOURCE, kind, comm_, &found, &status) !=
              MPI_SUCCESS ||
          !found)
        break;
      // A probed zero-byte message: the receive returns at once.
      if (MPI_Recv(nullptr, 0, MPI_BYTE, status.MPI_SOURCE, kind, comm_,
                   MPI_STATUS_IGNORE) != MPI_SUCCESS)
        break;
      if (kind == kPing)
        send(status.MPI_SOURCE, kPong);
      else
        lastAnswer_[status.MPI_SOURCE] = Clock::now();
    }
  }
}

void Liveness::send(int mpiRank, int kind) {
  MPI_Request request = MPI_REQUEST_NULL;
  if (MPI_Isend(nullptr, 0, MPI_BYTE, mpiRank, kind, comm_, &request) ==
      MPI_SUCCESS)
    MPI_Request_free(&request);
}

void PeerExits::start(MPI_Comm comm, int tag, int size,
                      std::vector<int> groupRanks) {
  comm_ = comm;
  tag_ = tag;
  groupRanks_ = std::move(groupRanks);
  notices_.resize(size);
  exited_.assign(size, false);
  expected_ = size - 1;
  post();
}

bool PeerExits::poll() {
  while (request_ != MPI_REQUEST_NULL) {
    int done = 0;
    MPI_Status status;
    if (MPI_Test(&request_, &done, &status) != MPI_SUCCESS || !done)
      break;
    int source = status.MPI_SOURCE;
    int peer = source >= 0 && source < int(groupRanks_.size())
                   ? groupRanks_[source]
                   : -1;
    if (peer >= 0 && !exited_[peer]) {
      notices_[peer] = incoming_;
      exited_[peer] = true;
      ++received_;
    }
    post();
  }
  return received_ > 0;
}

void PeerExits::cancel() {
  if (request_ == MPI_REQUEST_NULL)
    return;
  MPI_Cancel(&request_);
  MPI_Wait(&request_, MPI_STATUS_IGNORE);
}

void PeerExits::post() {
  if (complete())
    return;
  if (MPI_Irecv(&incoming_, sizeof(ExitNotice), MPI_BYTE, MPI_ANY_SOURCE, tag_,
                comm_, &request_) != MPI_SUCCESS)
    request_ = MPI_REQUEST_NULL;
}

} // namespace mpi
} // namespace precrt
