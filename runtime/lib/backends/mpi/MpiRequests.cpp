//===- MpiRequests.cpp - The MPI backend's request poller -----------------===//

#include "backends/mpi/MpiRequests.h"

#include "core/Error.h"

#include <algorithm>
#include <memory>

namespace precrt {
namespace mpi {

/// When something last completed, and per peer when it was asked (kNever:
/// not now) and when to ask it again after it answered.
struct RequestSet::Watch {
  explicit Watch(size_t peers)
      : asked(peers, kNever), askAgain(peers, kNever) {}
  void progressed() {
    lastProgress = Clock::now();
    std::fill(asked.begin(), asked.end(), kNever);
  }
  Clock::time_point lastProgress = Clock::now();
  std::vector<Clock::time_point> asked, askAgain;
};

template <typename Selected>
int RequestSet::silentPeer(Watch &watch, Selected selected) {
  auto now = Clock::now();
  if (now - watch.lastProgress < stallAfter())
    return -1;
  for (size_t i = 0; i < requests_.size(); ++i) {
    int peer = peers_[i];
    if (requests_[i] == MPI_REQUEST_NULL || !selected(i) || lost_[peer])
      continue;
    int mpiRank = ranks_[peer];
    if (watch.asked[peer] == kNever) {
      if (now >= watch.askAgain[peer]) {
        liveness_.ping(mpiRank);
        watch.asked[peer] = now;
      }
    } else if (liveness_.answeredSince(mpiRank, watch.asked[peer])) {
      watch.asked[peer] = kNever;
      watch.askAgain[peer] = now + stallAfter();
    } else if (now - watch.asked[peer] >=
               std::chrono::milliseconds(replyMs())) {
      return peer;
    }
  }
  return -1;
}

template <typename Post>
void RequestSet::post(int peer, bool receive, Post postPiece, const char *data,
                      size_t bytes) {
  size_t offset = 0;
  do {
    size_t length = std::min(bytes - offset, kMaxMessageBytes);
    MPI_Request request = MPI_REQUEST_NULL;
    int rc = postPiece(data + offset, int(length), &request);
    (receive ? bytesReceived_ : bytesSent_) += length;
    if (onOtherHost_[peer])
      (receive ? bytesReceivedAcrossHosts_ : bytesSentAcrossHosts_) += length;
    if (rc != MPI_SUCCESS && postError_ == MPI_SUCCESS)
      postError_ = rc;
    requests_.push_back(request);
    peers_.push_back(peer);
    receives_.push_back(receive);
    offset += length;
  } while (offset < bytes);
}

template <typename Selected, typename Unneeded>
void RequestSet::complete(bool once, PeerExits &exits, Selected selected,
                          Unneeded unneeded) {
  Watch watch(ranks_.size());
  for (int polls = 0;; ++polls) {
    bool pending = false, progressed = false;
    for (size_t i = 0; i < requests_.size(); ++i) {
      if (requests_[i] == MPI_REQUEST_NULL || !selected(i))
        continue;
      int done = 0;
      // An MPI that fails here can tell nothing more.
      if (MPI_Test(&requests_[i], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return;
      progressed = progressed || done;
      pending = pending || (!done && !unneeded(i) && !lost_[peers_[i]]);
    }
    if (!pending || once)
      return;
    if (progressed)
      watch.progressed();
    exits.poll();
    liveness_.poll();
    int silent = silentPeer(
        watch, [&](size_t i) { return selected(i) && !unneeded(i); });
    if (silent >= 0) {
      lost_[silent] = true;
      recordLostProcess(ranks_[silent]);
    }
    pauseAfter(polls);
  }
}

void RequestSet::send(const void *data, size_t bytes, int peer, int tag) {
  post(
      peer, /*receive=*/false,
      [&](const char *piece, int length, MPI_Request *request) {
        return MPI_Isend(piece, length, MPI_BYTE, ranks_[peer], tag, comm_,
                         request);
      },
      static_cast<const char *>(data), bytes);
}

void RequestSet::recv(void *data, size_t bytes, int peer, int tag) {
  post(
      peer, /*receive=*/true,
      [&](const char *piece, int length, MPI_Request *request) {
        return MPI_Irecv(const_cast<char *>(piece), length, MPI_BYTE,
                         ranks_[peer], tag, comm_, request);
      },
      static_cast<const char *>(data), bytes);
}

precrt_status_t RequestSet::wait(Clock::time_point deadline, int64_t timeoutMs,
                                 const std::string &what, PeerExits &exits,
                                 const MadeCall &madeCall) {
  if (postError_ != MPI_SUCCESS)
    return fail(PRECRT_ERROR_BACKEND, "%s: %s", what.c_str(),
                mpiErrorText(postError_).c_str());
  std::vector<int> completed(requests_.size());
  size_t remaining = requests_.size();
  timeoutMs_ = timeoutMs;
  Watch watch(ranks_.size());
  for (int polls = 0; remaining > 0; ++polls) {
    int count = 0;
    int rc = MPI_Testsome(int(requests_.size()), requests_.data(), &count,
                          completed.data(), MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS)
      return fail(PRECRT_ERROR_BACKEND, "%s: %s", what.c_str(),
                  mpiErrorText(rc).c_str());
    if (count == MPI_UNDEFINED)
      break;
    remaining -= count;
    if (remaining == 0)
      break;
    if (count > 0)
      watch.progressed();
    if (Clock::now() >= deadline) {
      std::string missing;
      std::vector<int> missingPeers;
      for (size_t i = 0; i < requests_.size(); ++i) {
        if (requests_[i] == MPI_REQUEST_NULL ||
            std::find(missingPeers.begin(), missingPeers.end(), peers_[i]) !=
                missingPeers.end())
          continue;
        missingPeers.push_back(peers_[i]);
        missing +=
            (missing.empty() ? "rank " : ", rank ") + std::to_string(peers_[i]);
      }
      if (missingPeers.size() == 1)
        lostPeer_ = missingPeers.front();
      return fail(PRECRT_ERROR_TIMEOUT, "%s timed out waiting for %s",
                  what.c_str(), missing.c_str());
    }
    // Past the spin, a wait is long enough to afford a look for exits.
    if (polls >= kSpinPolls && exits.poll()) {
      for (size_t i = 0; i < requests_.size(); ++i) {
        if (requests_[i] == MPI_REQUEST_NULL)
          continue;
        const ExitNotice *notice = exits.notice(peers_[i]);
        if (notice && !madeCall(peers_[i], *notice)) {
          lostPeer_ = int(notice->lostPeer);
          return fail(PRECRT_ERROR_PEER_FAILED, "%s",
                      peerLeft(peers_[i], *notice, what).c_str());
        }
      }
    }
    if (polls >= kSpinPolls) {
      liveness_.poll();
      // The exchange of descriptors has its deadline instead.
      int silent = deadline == kNoDeadline
                       ? silentPeer(watch, [](size_t) { return true; })
                       : -1;
      if (silent >= 0) {
        lost_[silent] = true;
        lostPeer_ = silent;
        recordLostProcess(ranks_[silent]);
        return fail(PRECRT_ERROR_PEER_FAILED, "%s",
                    peerLost(silent, what, replyMs()).c_str());
      }
    }
    pauseAfter(polls);
  }
  clear();
  return PRECRT_SUCCESS;
}

void RequestSet::settle(bool retirable, PeerExits &exits,
                        const MadeCall &madeCall,
                        const std::function<void()> &leaving) {
  for (size_t i = 0; i < requests_.size(); ++i)
    if (receives_[i] && requests_[i] != MPI_REQUEST_NULL)
      MPI_Cancel(&requests_[i]);
  auto lost = [&](size_t i) { return bool(lost_[peers_[i]]); };
  complete(
      retirable, exits, [&](size_t i) { return bool(receives_[i]); }, lost);
  leaving();
  complete(
      retirable, exits, [&](size_t i) { return !receives_[i]; },
      [&](size_t i) {
        const ExitNotice *notice = exits.notice(peers_[i]);
        return lost(i) || (notice && !madeCall(peers_[i], *notice));
      });
  for (MPI_Request &request : requests_) {
    if (request == MPI_REQUEST_NULL)
      continue;
    MPI_Request_free(&request);
    holdsBuffers_ = true;
  }
  clear();
}

void RequestSet::clear() {
  requests_.clear();
  peers_.clear();
  receives_.clear();
}

bool drainUnreceived(MPI_Comm comm, int firstTag, int tags,
                     Clock::time_point deadline) {
  for (int tag = firstTag; tag < firstTag + tags;) {
    int found = 0, bytes = 0;
    MPI_Status status;
    if (MPI_Iprobe(MPI_ANY_SOURCE, tag, comm, &found, &status) != MPI_SUCCESS)
      return false;
    if (!found) {
      ++tag;
      continue;
    }
    if (MPI_Get_count(&status, MPI_BYTE, &bytes) != MPI_SUCCESS)
      return false;
    std::unique_ptr<char[]> scratch(new char[std::max(bytes, 1)]);
    MPI_Request request = MPI_REQUEST_NULL;
    if (MPI_Irecv(scratch.get(), bytes, MPI_BYTE, status.MPI_SOURCE,
                  status.MPI_TAG, comm, &request) != MPI_SUCCESS)
      return false;
    int done = 0;
    while (MPI_Test(&request, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
           !done && Clock::now() < deadline)
      sched_yield();
    if (!done) {
      // A matched receive cannot be cancelled: MPI keeps the buffer.
      MPI_Request_free(&request);
      scratch.release();
      return false;
    }
  }
  return true;
}

} // namespace mpi
} // namespace precrt
