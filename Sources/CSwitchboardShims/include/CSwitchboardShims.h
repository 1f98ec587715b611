#ifndef SWITCHBOARD_SHIMS_H
#define SWITCHBOARD_SHIMS_H
/* Tiny C shims for what Glibc does not expose to Swift (see TOOLCHAIN.md). */
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#endif
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
/* The EPOLL* and SO_* constants that import awkwardly, as plain ints. */
extern const unsigned int sb_EPOLLIN, sb_EPOLLOUT, sb_EPOLLERR, sb_EPOLLHUP, sb_EPOLLRDHUP, sb_EPOLLET;
extern const int sb_SO_REUSEPORT, sb_IPPROTO_IPV6, sb_IPV6_V6ONLY, sb_IP_MULTICAST_TTL;
#endif
