// The few DNS-SD (dns_sd.h) calls Switchboard's system discovery backend makes, reached
// through function pointers that sb_dnssd_load() looks up at run time: on Linux in avahi's
// compatibility library (libdns_sd.so.1, package libavahi-compat-libdnssd1), on Darwin in
// the system's libSystem. Nothing links against the library, so a machine without it
// builds and runs; the backend is then unavailable. The declarations follow the API's
// documented signatures, under names of our own.
#ifndef CDNSSD_H
#define CDNSSD_H

#include <stddef.h>
#include <stdint.h>

/// A DNS-SD operation (DNSServiceRef): one registration, browse, resolve or record query.
typedef struct sb_dnssd_operation *sb_dnssd_ref;

/// DNSServiceRegisterReply: the registration is live under `name` (error 0), or failed.
typedef void (*sb_dnssd_register_reply)(sb_dnssd_ref ref, uint32_t flags, int32_t error, const char *name,
                                        const char *type, const char *domain, void *context);
/// DNSServiceBrowseReply: an instance appeared (flags has 0x2, "add") or went away.
typedef void (*sb_dnssd_browse_reply)(sb_dnssd_ref ref, uint32_t flags, uint32_t interface, int32_t error,
                                      const char *name, const char *type, const char *domain, void *context);
/// DNSServiceResolveReply: an instance's SRV target, port (network byte order) and TXT rdata.
typedef void (*sb_dnssd_resolve_reply)(sb_dnssd_ref ref, uint32_t flags, uint32_t interface, int32_t error,
                                       const char *full_name, const char *host, uint16_t port_network_order,
                                       uint16_t txt_length, const unsigned char *txt, void *context);
/// DNSServiceQueryRecordReply: a record of the name appeared (flags has 0x2) or went away.
typedef void (*sb_dnssd_query_reply)(sb_dnssd_ref ref, uint32_t flags, uint32_t interface, int32_t error,
                                     const char *full_name, uint16_t type, uint16_t record_class,
                                     uint16_t length, const void *rdata, uint32_t ttl, void *context);

/// Looks the calls up in `library` (a file name for dlopen; NULL: the process's own symbols,
/// as on Darwin). Returns 0 and keeps them for the calls below, or -1 with a static or
/// dlerror() text in *message. Every call really tries; the first success is kept.
int sb_dnssd_load(const char *library, const char **message);

int32_t sb_dnssd_register(sb_dnssd_ref *ref, uint32_t flags, uint32_t interface, const char *name,
                          const char *type, const char *domain, const char *host, uint16_t port_network_order,
                          uint16_t txt_length, const void *txt, sb_dnssd_register_reply reply, void *context);
int32_t sb_dnssd_browse(sb_dnssd_ref *ref, uint32_t flags, uint32_t interface, const char *type,
                        const char *domain, sb_dnssd_browse_reply reply, void *context);
int32_t sb_dnssd_resolve(sb_dnssd_ref *ref, uint32_t flags, uint32_t interface, const char *name,
                         const char *type, const char *domain, sb_dnssd_resolve_reply reply, void *context);
int32_t sb_dnssd_query_record(sb_dnssd_ref *ref, uint32_t flags, uint32_t interface, const char *full_name,
                              uint16_t type, uint16_t record_class, sb_dnssd_query_reply reply, void *context);
/// DNSServiceRefSockFD: the descriptor that turns readable when a reply waits.
int sb_dnssd_socket(sb_dnssd_ref ref);
/// DNSServiceProcessResult: reads the waiting reply and calls the operation's reply function.
int32_t sb_dnssd_process(sb_dnssd_ref ref);
/// DNSServiceRefDeallocate: ends the operation (a registration is withdrawn).
void sb_dnssd_deallocate(sb_dnssd_ref ref);

#endif
