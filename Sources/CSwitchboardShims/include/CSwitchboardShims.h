#ifndef SWITCHBOARD_SHIMS_H
#define SWITCHBOARD_SHIMS_H
/* Tiny C shims for what Glibc does not expose to Swift: the epoll, eventfd and accept4
   declarations, the GNU-only calls (accept4, pthread_setname_np) that need _GNU_SOURCE —
   defined here in the C file, because defining it for the Swift side breaks bind/connect —
   and constants that import awkwardly. */
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#endif
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <ifaddrs.h>
#include <net/if.h>

/* accept4(fd, addr, len, SOCK_NONBLOCK | SOCK_CLOEXEC); falls back to accept + fcntl off Linux. */
int sb_accept_nonblocking(int fd, struct sockaddr *addr, socklen_t *len);
/* Sets O_NONBLOCK (and FD_CLOEXEC) on fd. Returns 0 or -1 with errno. */
int sb_set_nonblocking(int fd);
/* An eventfd (Linux) used to wake an epoll loop; -1 elsewhere. */
int sb_eventfd(void);
int sb_eventfd_signal(int fd);
int sb_eventfd_drain(int fd);
/* Makes glibc serve every allocation of `bytes` or more with a mapping of its own, freed at
   once (mallopt M_MMAP_THRESHOLD, which also ends glibc's dynamic thresholds); returns 1 on
   success, 0 where there is no such call. */
int sb_set_mmap_threshold(size_t bytes);
/* Returns freed heap memory to the kernel (glibc's malloc_trim(0)); 0 where there is no
   such call. Returns 1 when memory was released. */
int sb_release_free_memory(void);
/* Bytes of heap in use (glibc's mallinfo2().uordblks); 0 where unknown. */
size_t sb_heap_bytes_in_use(void);
/* Writes iov[0..<count] to a stream socket: send() for one buffer, sendmsg() for more.
   Both skip the VFS layer that writev() goes through (~8 % of a small loopback write,
   measured here), and MSG_NOSIGNAL keeps a closed peer from raising SIGPIPE. Returns the
   bytes written or -1 with errno. */
ssize_t sb_send_stream(int fd, const struct iovec *iov, int count);
/* Batched sends through io_uring: the sends one loop iteration produces are queued and
   handed to the kernel with one io_uring_enter instead of one system call each.
   Linux only; elsewhere create fails with ENOSYS. One thread at a time per ring.
   - create: a ring of `entries` (a power of two) sends and a pool of `iovecs` iovecs;
     NULL with errno when io_uring is unavailable (old kernel, seccomp, disabled).
   - reserve: room for one more send of `count` iovecs; NULL when the batch is full
     (submit first). Fill the iovecs, then push.
   - push: queues a send of iov[0..<count] to fd (MSG_DONTWAIT | MSG_NOSIGNAL: a full
     socket answers -EAGAIN at once); `tag` comes back with its result.
   - submit: submits the queued sends and waits until every one has completed, so the
     buffers and descriptors need only stay valid until it returns. tags[i], results[i]
     (bytes written or -errno) for each, in completion order; both arrays must hold
     `entries`. Returns the count, or -errno when the ring failed (the sends are lost). */
typedef struct sb_send_ring sb_send_ring;
sb_send_ring *sb_send_ring_create(unsigned entries, unsigned iovecs);
void sb_send_ring_destroy(sb_send_ring *ring);
struct iovec *sb_send_ring_reserve(sb_send_ring *ring, int count);
void sb_send_ring_push(sb_send_ring *ring, int fd, struct iovec *iov, int count, uint64_t tag);
unsigned sb_send_ring_queued(const sb_send_ring *ring);
int sb_send_ring_submit(sb_send_ring *ring, uint64_t *tags, int32_t *results);
/* Names the calling thread (Linux keeps 15 bytes and the NUL; `name` must fit). Returns 0
   or an error number. */
int sb_thread_set_name(const char *name);
/* Copies the calling thread's name into buf[0..<len] (NUL-terminated). Returns 0 or an
   error number. */
int sb_thread_get_name(char *buf, size_t len);
/* The EPOLL* and SO_* constants that import awkwardly, as plain ints. */
extern const unsigned int sb_EPOLLIN, sb_EPOLLOUT, sb_EPOLLERR, sb_EPOLLHUP, sb_EPOLLRDHUP, sb_EPOLLET;
extern const int sb_SO_REUSEPORT, sb_IPPROTO_IPV6, sb_IPV6_V6ONLY, sb_IP_MULTICAST_TTL;
/* Multicast on a UDP socket of `family` (AF_INET or AF_INET6), for mDNS. All return 0 or -1
   with errno.
   - setup: multicast loop on, TTL / hop limit `hops` for multicast, and IP_PKTINFO /
     IPV6_RECVPKTINFO so sb_recv_from_interface can say where a datagram came in.
   - join: join `group` (4 or 16 bytes, network order) on the interface with index `ifindex`.
   - set_interface: send multicast out of the interface with index `ifindex`. */
int sb_multicast_setup(int fd, int family, int hops);
int sb_multicast_join(int fd, int family, const uint8_t *group, unsigned ifindex);
int sb_multicast_set_interface(int fd, int family, unsigned ifindex);
/* recvmsg with the sender in `from` and the index of the receiving interface in `ifindex`
   (0 when the kernel gave no packet info). Returns the datagram's full length (MSG_TRUNC),
   or -1 with errno. */
ssize_t sb_recv_from_interface(int fd, void *buf, size_t len, struct sockaddr_storage *from, unsigned *ifindex);
#endif
