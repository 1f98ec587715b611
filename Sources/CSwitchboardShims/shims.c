#define _GNU_SOURCE
#include "CSwitchboardShims.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#ifdef __linux__
const unsigned int sb_EPOLLIN = EPOLLIN, sb_EPOLLOUT = EPOLLOUT, sb_EPOLLERR = EPOLLERR,
                   sb_EPOLLHUP = EPOLLHUP, sb_EPOLLRDHUP = EPOLLRDHUP, sb_EPOLLET = EPOLLET;
#else
const unsigned int sb_EPOLLIN = 0, sb_EPOLLOUT = 0, sb_EPOLLERR = 0, sb_EPOLLHUP = 0, sb_EPOLLRDHUP = 0,
                   sb_EPOLLET = 0;
#endif
const int sb_IPPROTO_IPV6 = IPPROTO_IPV6, sb_IPV6_V6ONLY = IPV6_V6ONLY, sb_IP_MULTICAST_TTL = IP_MULTICAST_TTL;
#ifdef SO_REUSEPORT
const int sb_SO_REUSEPORT = SO_REUSEPORT;
#else
const int sb_SO_REUSEPORT = -1;
#endif

int sb_set_nonblocking(int fd) {
  int flags = fcntl(fd, F_GETFL, 0);
  if (flags < 0) return -1;
  if (fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) return -1;
  int fdflags = fcntl(fd, F_GETFD, 0);
  if (fdflags >= 0) fcntl(fd, F_SETFD, fdflags | FD_CLOEXEC);
  return 0;
}

int sb_accept_nonblocking(int fd, struct sockaddr *addr, socklen_t *len) {
#ifdef __linux__
  return accept4(fd, addr, len, SOCK_NONBLOCK | SOCK_CLOEXEC);
#else
  int c = accept(fd, addr, len);
  if (c >= 0 && sb_set_nonblocking(c) < 0) { int e = errno; close(c); errno = e; return -1; }
  return c;
#endif
}

int sb_eventfd(void) {
#ifdef __linux__
  return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
#else
  errno = ENOSYS;
  return -1;
#endif
}

int sb_eventfd_signal(int fd) {
  uint64_t one = 1;
  return (int)write(fd, &one, sizeof one);
}

int sb_eventfd_drain(int fd) {
  uint64_t value;
  return (int)read(fd, &value, sizeof value);
}

ssize_t sb_send_stream(int fd, const struct iovec *iov, int count) {
#ifdef MSG_NOSIGNAL
  const int flags = MSG_NOSIGNAL;
#else
  const int flags = 0;
#endif
  if (count == 1) return send(fd, iov[0].iov_base, iov[0].iov_len, flags);
  struct msghdr message;
  memset(&message, 0, sizeof message);
  message.msg_iov = (struct iovec *)iov;
  message.msg_iovlen = (size_t)count;
  return sendmsg(fd, &message, flags);
}

int sb_thread_set_name(const char *name) {
#ifdef __APPLE__
  return pthread_setname_np(name);  /* Darwin names only the calling thread */
#else
  return pthread_setname_np(pthread_self(), name);
#endif
}

int sb_thread_get_name(char *buf, size_t len) { return pthread_getname_np(pthread_self(), buf, len); }

/* Multicast for mDNS: ip_mreqn and the packet-info structs are Linux (glibc with _GNU_SOURCE). */
#ifdef __linux__
int sb_multicast_setup(int fd, int family, int hops) {
  int one = 1;
  if (family == AF_INET) {
    unsigned char loop = 1, ttl = (unsigned char)hops;
    if (setsockopt(fd, IPPROTO_IP, IP_MULTICAST_LOOP, &loop, sizeof loop) < 0) return -1;
    if (setsockopt(fd, IPPROTO_IP, IP_MULTICAST_TTL, &ttl, sizeof ttl) < 0) return -1;
    return setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &one, sizeof one);
  }
  if (setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_LOOP, &one, sizeof one) < 0) return -1;
  if (setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, &hops, sizeof hops) < 0) return -1;
  return setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &one, sizeof one);
}

int sb_multicast_join(int fd, int family, const uint8_t *group, unsigned ifindex) {
  if (family == AF_INET) {
    struct ip_mreqn m;
    memset(&m, 0, sizeof m);
    memcpy(&m.imr_multiaddr, group, 4);
    m.imr_ifindex = (int)ifindex;
    return setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof m);
  }
  struct ipv6_mreq m;
  memset(&m, 0, sizeof m);
  memcpy(&m.ipv6mr_multiaddr, group, 16);
  m.ipv6mr_interface = ifindex;
  return setsockopt(fd, IPPROTO_IPV6, IPV6_JOIN_GROUP, &m, sizeof m);
}

int sb_multicast_set_interface(int fd, int family, unsigned ifindex) {
  if (family == AF_INET) {
    struct ip_mreqn m;
    memset(&m, 0, sizeof m);
    m.imr_ifindex = (int)ifindex;
    return setsockopt(fd, IPPROTO_IP, IP_MULTICAST_IF, &m, sizeof m);
  }
  return setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_IF, &ifindex, sizeof ifindex);
}

ssize_t sb_recv_from_interface(int fd, void *buf, size_t len, struct sockaddr_storage *from, unsigned *ifindex) {
  union { struct cmsghdr align; char bytes[CMSG_SPACE(sizeof(struct in6_pktinfo)) + CMSG_SPACE(sizeof(struct in_pktinfo))]; } control;
  struct iovec iov = { buf, len };
  struct msghdr msg;
  memset(&msg, 0, sizeof msg);
  msg.msg_name = from;
  msg.msg_namelen = sizeof *from;
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.bytes;
  msg.msg_controllen = sizeof control.bytes;
  ssize_t n = recvmsg(fd, &msg, MSG_TRUNC);
  if (n < 0) return n;
  *ifindex = 0;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
      struct in_pktinfo info;
      memcpy(&info, CMSG_DATA(c), sizeof info);
      *ifindex = (unsigned)info.ipi_ifindex;
    } else if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO) {
      struct in6_pktinfo info;
      memcpy(&info, CMSG_DATA(c), sizeof info);
      *ifindex = info.ipi6_ifindex;
    }
  }
  return n;
}
#else
int sb_multicast_setup(int fd, int family, int hops) { (void)fd; (void)family; (void)hops; errno = ENOSYS; return -1; }
int sb_multicast_join(int fd, int family, const uint8_t *group, unsigned ifindex) {
  (void)fd; (void)family; (void)group; (void)ifindex; errno = ENOSYS; return -1;
}
int sb_multicast_set_interface(int fd, int family, unsigned ifindex) {
  (void)fd; (void)family; (void)ifindex; errno = ENOSYS; return -1;
}
ssize_t sb_recv_from_interface(int fd, void *buf, size_t len, struct sockaddr_storage *from, unsigned *ifindex) {
  socklen_t n = sizeof *from;
  *ifindex = 0;
  return recvfrom(fd, buf, len, 0, (struct sockaddr *)from, &n);
}
#endif

int sb_set_mmap_threshold(size_t bytes) {
#ifdef __GLIBC__
  return mallopt(M_MMAP_THRESHOLD, (int)bytes);
#else
  (void)bytes;
  return 0;
#endif
}

int sb_release_free_memory(void) {
#ifdef __GLIBC__
  return malloc_trim(0);
#else
  return 0;
#endif
}

size_t sb_heap_bytes_in_use(void) {
#ifdef __GLIBC__
  return mallinfo2().uordblks;
#else
  return 0;
#endif
}
