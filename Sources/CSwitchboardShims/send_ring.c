/* Batched sends through io_uring (see the header for the contract). No liburing: the ring
   is set up with the raw system calls, which is all a send-only ring needs. */
#define _GNU_SOURCE
#include "CSwitchboardShims.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/io_uring.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/syscall.h>

struct sb_send_ring {
  int fd;
  unsigned entries;            /* SQ size */
  unsigned queued;             /* SQEs written since the last submit */
  /* SQ ring */
  void *sqMap;
  size_t sqMapSize;
  _Atomic unsigned *sqTail;
  unsigned sqMask;
  unsigned *sqArray;
  struct io_uring_sqe *sqes;
  size_t sqesSize;
  /* CQ ring */
  void *cqMap;
  size_t cqMapSize;
  _Atomic unsigned *cqHead, *cqTail;
  unsigned cqMask;
  struct io_uring_cqe *cqes;
  /* per-SQE message headers (sendmsg) and one pool of iovecs, handed out in order */
  struct msghdr *headers;
  struct iovec *iovecs;
  unsigned iovecCapacity, iovecUsed;
};

static int ringSetup(unsigned entries, struct io_uring_params *p, unsigned flags) {
  memset(p, 0, sizeof *p);
  p->flags = flags | IORING_SETUP_CQSIZE;
  p->cq_entries = entries * 2;
  return (int)syscall(__NR_io_uring_setup, entries, p);
}

sb_send_ring *sb_send_ring_create(unsigned entries, unsigned iovecs) {
  if (entries == 0 || (entries & (entries - 1)) != 0 || iovecs == 0) { errno = EINVAL; return NULL; }
  struct io_uring_params p;
  /* SUBMIT_ALL (5.18): one bad entry does not stop the rest of the batch. COOP_TASKRUN
     (5.19): no interrupting the loop thread for completion work. Older kernels: neither. */
  int fd = ringSetup(entries, &p, IORING_SETUP_SUBMIT_ALL | IORING_SETUP_COOP_TASKRUN);
  if (fd < 0 && errno == EINVAL) fd = ringSetup(entries, &p, 0);
  if (fd < 0) return NULL;
  sb_send_ring *r = calloc(1, sizeof *r);
  if (!r) { close(fd); errno = ENOMEM; return NULL; }
  r->fd = fd;
  r->entries = p.sq_entries;
  r->sqMapSize = p.sq_off.array + p.sq_entries * sizeof(unsigned);
  r->cqMapSize = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
  int single = (p.features & IORING_FEAT_SINGLE_MMAP) != 0;
  if (single && r->cqMapSize > r->sqMapSize) r->sqMapSize = r->cqMapSize;
  r->sqMap = mmap(NULL, r->sqMapSize, PROT_READ | PROT_WRITE, MAP_SHARED, fd, IORING_OFF_SQ_RING);
  if (r->sqMap == MAP_FAILED) goto fail;
  if (single) {
    r->cqMap = r->sqMap;
  } else {
    r->cqMap = mmap(NULL, r->cqMapSize, PROT_READ | PROT_WRITE, MAP_SHARED, fd, IORING_OFF_CQ_RING);
    if (r->cqMap == MAP_FAILED) { r->cqMap = NULL; goto fail; }
  }
  r->sqesSize = p.sq_entries * sizeof(struct io_uring_sqe);
  r->sqes = mmap(NULL, r->sqesSize, PROT_READ | PROT_WRITE, MAP_SHARED, fd, IORING_OFF_SQES);
  if (r->sqes == MAP_FAILED) { r->sqes = NULL; goto fail; }
  char *sq = r->sqMap, *cq = r->cqMap;
  r->sqTail = (_Atomic unsigned *)(sq + p.sq_off.tail);
  r->sqMask = *(unsigned *)(sq + p.sq_off.ring_mask);
  r->sqArray = (unsigned *)(sq + p.sq_off.array);
  r->cqHead = (_Atomic unsigned *)(cq + p.cq_off.head);
  r->cqTail = (_Atomic unsigned *)(cq + p.cq_off.tail);
  r->cqMask = *(unsigned *)(cq + p.cq_off.ring_mask);
  r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
  r->headers = calloc(p.sq_entries, sizeof *r->headers);
  r->iovecs = malloc(iovecs * sizeof *r->iovecs);
  r->iovecCapacity = iovecs;
  if (!r->headers || !r->iovecs) { errno = ENOMEM; goto fail; }
  return r;
fail:;
  int e = errno;
  sb_send_ring_destroy(r);
  errno = e;
  return NULL;
}

void sb_send_ring_destroy(sb_send_ring *r) {
  if (!r) return;
  if (r->sqes) munmap(r->sqes, r->sqesSize);
  if (r->cqMap && r->cqMap != r->sqMap) munmap(r->cqMap, r->cqMapSize);
  if (r->sqMap && r->sqMap != MAP_FAILED) munmap(r->sqMap, r->sqMapSize);
  free(r->headers);
  free(r->iovecs);
  close(r->fd);
  free(r);
}

struct iovec *sb_send_ring_reserve(sb_send_ring *r, int count) {
  if (count <= 0 || r->queued >= r->entries || r->iovecUsed + (unsigned)count > r->iovecCapacity) return NULL;
  return r->iovecs + r->iovecUsed;
}

void sb_send_ring_push(sb_send_ring *r, int fd, struct iovec *iov, int count, uint64_t tag) {
  unsigned tail = atomic_load_explicit(r->sqTail, memory_order_relaxed) + r->queued;
  unsigned index = tail & r->sqMask;
  struct io_uring_sqe *sqe = &r->sqes[index];
  memset(sqe, 0, sizeof *sqe);
  sqe->fd = fd;
  sqe->user_data = tag;
  /* MSG_DONTWAIT makes a full socket complete with -EAGAIN at once instead of being
     parked until writable: the caller waits for writability with epoll, as for send(). */
  sqe->msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL;
  if (count == 1) {
    sqe->opcode = IORING_OP_SEND;
    sqe->addr = (uint64_t)(uintptr_t)iov[0].iov_base;
    sqe->len = (uint32_t)iov[0].iov_len;
  } else {
    struct msghdr *m = &r->headers[index];
    memset(m, 0, sizeof *m);
    m->msg_iov = iov;
    m->msg_iovlen = (size_t)count;
    sqe->opcode = IORING_OP_SENDMSG;
    sqe->addr = (uint64_t)(uintptr_t)m;
    sqe->len = 1;
  }
  r->sqArray[index] = index;
  r->queued += 1;
  r->iovecUsed += (unsigned)count;
}

unsigned sb_send_ring_queued(const sb_send_ring *r) { return r->queued; }

int sb_send_ring_submit(sb_send_ring *r, uint64_t *tags, int32_t *results) {
  unsigned want = r->queued;
  if (want == 0) return 0;
  unsigned tail = atomic_load_explicit(r->sqTail, memory_order_relaxed);
  atomic_store_explicit(r->sqTail, tail + want, memory_order_release);
  r->queued = 0;
  r->iovecUsed = 0;
  unsigned submitted = 0, reaped = 0;
  while (reaped < want) {
    unsigned toSubmit = want - submitted;
    unsigned head = atomic_load_explicit(r->cqHead, memory_order_relaxed);
    unsigned ready = atomic_load_explicit(r->cqTail, memory_order_acquire) - head;
    if (toSubmit > 0 || ready == 0) {
      /* Sends with MSG_DONTWAIT complete while they are submitted; waiting for all of
         them is what keeps the caller's buffers (and descriptors) valid until then. */
      long rc = syscall(__NR_io_uring_enter, r->fd, toSubmit, want - reaped - ready, IORING_ENTER_GETEVENTS, NULL, 0);
      if (rc < 0) {
        if (errno == EINTR || errno == EAGAIN || errno == EBUSY) continue;
        return -errno;
      }
      submitted += (unsigned)rc;
      ready = atomic_load_explicit(r->cqTail, memory_order_acquire) - head;
    }
    for (unsigned i = 0; i < ready; i++) {
      struct io_uring_cqe *cqe = &r->cqes[(head + i) & r->cqMask];
      tags[reaped] = cqe->user_data;
      results[reaped] = cqe->res;
      reaped += 1;
    }
    atomic_store_explicit(r->cqHead, head + ready, memory_order_release);
  }
  return (int)reaped;
}

#else

sb_send_ring *sb_send_ring_create(unsigned entries, unsigned iovecs) {
  (void)entries; (void)iovecs;
  errno = ENOSYS;
  return NULL;
}
void sb_send_ring_destroy(sb_send_ring *r) { (void)r; }
struct iovec *sb_send_ring_reserve(sb_send_ring *r, int count) { (void)r; (void)count; return NULL; }
void sb_send_ring_push(sb_send_ring *r, int fd, struct iovec *iov, int count, uint64_t tag) {
  (void)r; (void)fd; (void)iov; (void)count; (void)tag;
}
unsigned sb_send_ring_queued(const sb_send_ring *r) { (void)r; return 0; }
int sb_send_ring_submit(sb_send_ring *r, uint64_t *tags, int32_t *results) {
  (void)r; (void)tags; (void)results;
  return -ENOSYS;
}

#endif
