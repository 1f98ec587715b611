#define _GNU_SOURCE
#include "CSwitchboardShims.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

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
