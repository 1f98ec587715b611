/*
 * The floor: the least work a WebSocket broadcast server can do on this machine, so that
 * the benchmark can say how far every real server is from it.
 *
 * One thread, one epoll set, no allocation per message. Each read's complete client
 * frames are unmasked into one batch of server frames (one message per frame, as
 * Switchboard sends them), and after every ready connection has been read the batch goes
 * to every client with a single send() each. A client whose kernel buffer is full gets
 * the rest queued and flushed on EPOLLOUT. No rooms, no history, no UTF-8 checks, no
 * limits beyond a 64 KiB frame: a measuring stick, not a server anyone should run.
 *
 * With --uring (build with FLOOR_URING and Switchboard's send_ring.c, as run.sh does), the
 * batch goes to every client through one io_uring submission instead of one send() each:
 * the floor for a server that batches its sends, as Switchboard's io_uring backend does.
 *
 * Build: cc -O2 -o floor_hub floor_hub.c -lcrypto     Run: ./floor_hub PORT [--uring]
 *        cc -O2 -DFLOOR_URING -I../../Sources/CSwitchboardShims/include -o floor_hub \
 *           floor_hub.c ../../Sources/CSwitchboardShims/send_ring.c -lcrypto
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/evp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#ifdef FLOOR_URING
#include "CSwitchboardShims.h"
#endif

enum { MAX_FRAME = 65536, IN_CAP = 2 * MAX_FRAME + 16 };

typedef struct Client {
  int fd;
  int open;            /* handshake done */
  size_t inLen;
  unsigned char in[IN_CAP];
  unsigned char *out;  /* bytes the kernel did not take yet */
  size_t outLen, outCap;
  struct Client *nextOpen, *prevOpen;
} Client;

static Client *openList, *deadList;
static unsigned char *batch;
static size_t batchLen, batchCap;
static int epfd;

static void append(unsigned char **buf, size_t *len, size_t *cap, const void *p, size_t n) {
  if (*len + n > *cap) {
    size_t c = *cap ? *cap : 4096;
    while (c < *len + n) c *= 2;
    unsigned char *b = realloc(*buf, c);
    if (!b) abort();
    *buf = b;
    *cap = c;
  }
  memcpy(*buf + *len, p, n);
  *len += n;
}

static void dropClient(Client *c) {
  if (c->fd < 0) return;
  if (c->open) {
    if (c->prevOpen) c->prevOpen->nextOpen = c->nextOpen; else openList = c->nextOpen;
    if (c->nextOpen) c->nextOpen->prevOpen = c->prevOpen;
  }
  c->open = 0;
  close(c->fd);
  c->fd = -1;
  /* Freed after this epoll batch: later events of the batch may still point here. */
  c->nextOpen = deadList;
  deadList = c;
}

/* Sends what fits now; queues the rest and asks for EPOLLOUT. Returns -1 on a dead peer. */
static int sendTo(Client *c, const unsigned char *p, size_t n) {
  if (c->outLen == 0) {
    ssize_t w = send(c->fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return -1;
    if (w < 0) w = 0;
    p += w;
    n -= (size_t)w;
    if (n == 0) return 0;
    struct epoll_event e = {.events = EPOLLIN | EPOLLOUT, .data.ptr = c};
    epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &e);
  }
  append(&c->out, &c->outLen, &c->outCap, p, n);
  return 0;
}

static void flushOut(Client *c) {
  ssize_t w = send(c->fd, c->out, c->outLen, MSG_DONTWAIT | MSG_NOSIGNAL);
  if (w <= 0) return;
  memmove(c->out, c->out + w, c->outLen - (size_t)w);
  c->outLen -= (size_t)w;
  if (c->outLen == 0) {
    struct epoll_event e = {.events = EPOLLIN, .data.ptr = c};
    epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &e);
  }
}

static int handshake(Client *c) {
  c->in[c->inLen] = 0;
  char *end = strstr((char *)c->in, "\r\n\r\n");
  if (!end) return c->inLen >= 8192 ? -1 : 0;
  char *key = strcasestr((char *)c->in, "\r\nSec-WebSocket-Key:");
  if (!key) return -1;
  key += 20;
  while (*key == ' ') key++;
  char *keyEnd = strstr(key, "\r\n");
  char joined[128];
  int kl = (int)(keyEnd - key);
  if (kl <= 0 || kl > 60) return -1;
  snprintf(joined, sizeof joined, "%.*s258EAFA5-E914-47DA-95CA-C5AB0DC85B11", kl, key);
  unsigned char digest[20];
  unsigned int dl = 0;
  EVP_Digest(joined, strlen(joined), digest, &dl, EVP_sha1(), NULL);
  unsigned char accept[64];
  EVP_EncodeBlock(accept, digest, 20);
  char response[256];
  int rl = snprintf(response, sizeof response,
                    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    "Sec-WebSocket-Accept: %s\r\n\r\n", accept);
  if (sendTo(c, (unsigned char *)response, (size_t)rl) < 0) return -1;
  size_t used = (size_t)(end + 4 - (char *)c->in);
  memmove(c->in, c->in + used, c->inLen - used);
  c->inLen -= used;
  c->open = 1;
  c->nextOpen = openList;
  c->prevOpen = NULL;
  if (openList) openList->prevOpen = c;
  openList = c;
  return 1;
}

/* Moves every complete frame in c->in into the batch (text/binary) or answers it. */
static int frames(Client *c) {
  size_t i = 0;
  while (c->inLen - i >= 2) {
    unsigned char *p = c->in + i;
    size_t len = p[1] & 0x7F, head = 2;
    if (!(p[1] & 0x80)) return -1; /* clients must mask */
    if (len == 126) {
      if (c->inLen - i < 4) break;
      len = (size_t)p[2] << 8 | p[3];
      head = 4;
    } else if (len == 127) {
      return -1;
    }
    if (len > MAX_FRAME) return -1;
    if (c->inLen - i < head + 4 + len) break;
    unsigned char *mask = p + head, *data = p + head + 4;
    for (size_t k = 0; k < len; k++) data[k] ^= mask[k & 3];
    unsigned char h[4];
    size_t hl = 2;
    h[0] = p[0];
    if (len < 126) {
      h[1] = (unsigned char)len;
    } else {
      h[1] = 126; h[2] = (unsigned char)(len >> 8); h[3] = (unsigned char)len; hl = 4;
    }
    int opcode = p[0] & 0x0F;
    if (opcode == 0x8) return -1;
    if (opcode == 0x9) {
      h[0] = 0x8A;
      if (sendTo(c, h, hl) < 0 || sendTo(c, data, len) < 0) return -1;
    } else if (opcode <= 0x2) {
      append(&batch, &batchLen, &batchCap, h, hl);
      append(&batch, &batchLen, &batchCap, data, len);
    }
    i += head + 4 + len;
  }
  memmove(c->in, c->in + i, c->inLen - i);
  c->inLen -= i;
  return 0;
}

#ifdef FLOOR_URING
enum { RING = 1024 };
static sb_send_ring *ring;
static Client *ringClients[RING];
static uint64_t ringTags[RING];
static int32_t ringResults[RING];

/* What a short send leaves goes to the client's queue, as in sendTo(). */
static void ringSubmit(int queued) {
  int done = sb_send_ring_submit(ring, ringTags, ringResults);
  if (done < 0) abort();
  for (int i = 0; i < done; i++) {
    Client *c = ringClients[ringTags[i]];
    int32_t w = ringResults[i];
    if (w < 0 && w != -EAGAIN) { dropClient(c); continue; }
    if (w < 0) w = 0;
    if ((size_t)w == batchLen) continue;
    struct epoll_event e = {.events = EPOLLIN | EPOLLOUT, .data.ptr = c};
    epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &e);
    append(&c->out, &c->outLen, &c->outCap, batch + w, batchLen - (size_t)w);
  }
  (void)queued;
}

static void broadcastRing(void) {
  int queued = 0;
  Client *next;
  for (Client *c = openList; c; c = next) {
    next = c->nextOpen;
    if (c->outLen) {  /* behind queued bytes: no send now */
      append(&c->out, &c->outLen, &c->outCap, batch, batchLen);
      continue;
    }
    struct iovec *iov = sb_send_ring_reserve(ring, 1);
    if (!iov) { ringSubmit(queued); queued = 0; iov = sb_send_ring_reserve(ring, 1); }
    iov[0].iov_base = batch;
    iov[0].iov_len = batchLen;
    ringClients[queued] = c;
    sb_send_ring_push(ring, c->fd, iov, 1, (uint64_t)queued);
    queued++;
  }
  if (queued) ringSubmit(queued);
}
#endif

int main(int argc, char **argv) {
  signal(SIGPIPE, SIG_IGN);
  int port = argc > 1 ? atoi(argv[1]) : 8092;
  if (argc > 2 && strcmp(argv[2], "--uring") == 0) {
#ifdef FLOOR_URING
    ring = sb_send_ring_create(RING, RING);
    if (!ring) { perror("floor_hub: io_uring"); return 1; }
#else
    fprintf(stderr, "floor_hub: built without FLOOR_URING\n");
    return 1;
#endif
  }
  int l = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  int one = 1;
  setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                          .sin_addr.s_addr = htonl(0x7F000001)};
  if (bind(l, (struct sockaddr *)&a, sizeof a) < 0 || listen(l, 4096) < 0) {
    perror("floor_hub: bind/listen");
    return 1;
  }
  epfd = epoll_create1(0);
  struct epoll_event le = {.events = EPOLLIN, .data.ptr = NULL};
  epoll_ctl(epfd, EPOLL_CTL_ADD, l, &le);
  fprintf(stderr, "floor hub on 127.0.0.1:%d\n", port);
  struct epoll_event events[256];
  for (;;) {
    int n = epoll_wait(epfd, events, 256, -1);
    for (int k = 0; k < n; k++) {
      Client *c = events[k].data.ptr;
      if (c && c->fd < 0) continue;
      if (!c) {
        int fd;
        while ((fd = accept4(l, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
          setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          Client *nc = calloc(1, sizeof *nc);
          if (!nc) abort();
          nc->fd = fd;
          struct epoll_event e = {.events = EPOLLIN, .data.ptr = nc};
          epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &e);
        }
        continue;
      }
      if (events[k].events & EPOLLOUT) flushOut(c);
      if (!(events[k].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) continue;
      ssize_t r = recv(c->fd, c->in + c->inLen, IN_CAP - 1 - c->inLen, 0);
      if (r <= 0) {
        if (r < 0 && errno == EAGAIN) continue;
        dropClient(c);
        continue;
      }
      c->inLen += (size_t)r;
      int st = 0;
      if (!c->open) st = handshake(c);
      if (st >= 0 && c->open) st = frames(c);
      if (st < 0) dropClient(c);
    }
    if (batchLen) {
#ifdef FLOOR_URING
      if (ring) {
        broadcastRing();
      } else
#endif
      {
        Client *next;
        for (Client *c = openList; c; c = next) {
          next = c->nextOpen;
          if (sendTo(c, batch, batchLen) < 0) dropClient(c);
        }
      }
      batchLen = 0;
    }
    while (deadList) {
      Client *d = deadList;
      deadList = d->nextOpen;
      free(d->out);
      free(d);
    }
  }
}
