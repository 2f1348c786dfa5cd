//===- CommunicationThread.h - Started transports of a rank -*- C++ -*-===//
//
// Each rank (a thread of a local world, or a process's thread) that starts
// a transport gets one communication thread, which runs the rank's started
// work in order on the rank's world. The rank's communicator objects and MPI
// (initialized MPI_THREAD_SERIALIZED) must never be used by two threads at
// once, so everything the rank itself communicates first waits until its
// communication thread is idle (waitUntilIdle). The thread is joined, after
// it ran what was queued, when the rank's world ends (endWorld) or the rank's
// thread exits.
//
//===----------------------------------------------------------------------===//

#ifndef PRECRT_LIB_CORE_COMMUNICATIONTHREAD_H
#define PRECRT_LIB_CORE_COMMUNICATIONTHREAD_H

#include <cstdint>
#include <functional>

namespace precrt {

class Communicator;

namespace communication_thread {

/// Queues `work` on the calling thread's communication thread for `world`,
/// creating the thread on first use (or after the previous one's world
/// ended). The work runs with `world` as its thread's current world and
/// `device` as its current GPU. Returns the thread's id (> 0).
uint64_t submit(Communicator *world, int device, std::function<void()> work);

/// Waits until the calling thread's communication thread has run all the
/// work queued so far. Nothing to do on a communication thread itself or on
/// a thread without one.
void waitUntilIdle();

/// The id of the calling thread's communication thread, 0 when it has none
/// (never started, or joined since).
uint64_t currentId();

/// Joins the communication threads serving `world`, whose end is near, after
/// they ran what was queued.
void endWorld(Communicator *world);

/// Joins the calling thread's communication thread, if any: its GPU
/// resources, which queued work uses, are about to go.
void endCallingThread();

/// Whether the calling thread is a communication thread.
bool onCommunicationThread();

} // namespace communication_thread
} // namespace precrt

#endif // PRECRT_LIB_CORE_COMMUNICATIONTHREAD_H
