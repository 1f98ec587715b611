// Run-time binding of the DNS-SD calls declared in CDNSSD.h (see there for why).
#include "CDNSSD.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

typedef int32_t (*register_fn)(sb_dnssd_ref *, uint32_t, uint32_t, const char *, const char *, const char *,
                               const char *, uint16_t, uint16_t, const void *, sb_dnssd_register_reply, void *);
typedef int32_t (*browse_fn)(sb_dnssd_ref *, uint32_t, uint32_t, const char *, const char *,
                             sb_dnssd_browse_reply, void *);
typedef int32_t (*resolve_fn)(sb_dnssd_ref *, uint32_t, uint32_t, const char *, const char *, const char *,
                              sb_dnssd_resolve_reply, void *);
typedef int32_t (*query_fn)(sb_dnssd_ref *, uint32_t, uint32_t, const char *, uint16_t, uint16_t,
                            sb_dnssd_query_reply, void *);
typedef int (*socket_fn)(sb_dnssd_ref);
typedef int32_t (*process_fn)(sb_dnssd_ref);
typedef void (*deallocate_fn)(sb_dnssd_ref);

struct table {
  register_fn register_service;
  browse_fn browse;
  resolve_fn resolve;
  query_fn query_record;
  socket_fn socket;
  process_fn process;
  deallocate_fn deallocate;
};

static struct table calls;
static atomic_int loaded;  // set after `calls`, so a call that sees it sees the table
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

// What the calls return before a successful load: kDNSServiceErr_NotInitialized.
enum { not_loaded = -65545 };

int sb_dnssd_load(const char *library, const char **message) {
  int result = 0;
  pthread_mutex_lock(&load_lock);
  // avahi's library prints a warning about its compatibility layer on first use unless this
  // is set; Switchboard chose that layer knowingly. Set once, before any avahi call.
  setenv("AVAHI_COMPAT_NOWARN", "1", 0);
  void *handle = library ? dlopen(library, RTLD_NOW | RTLD_LOCAL) : dlopen(NULL, RTLD_NOW);
  if (!handle) {
    *message = dlerror();
    result = -1;
    goto done;
  }
  struct table found = {
      (register_fn)dlsym(handle, "DNSServiceRegister"),
      (browse_fn)dlsym(handle, "DNSServiceBrowse"),
      (resolve_fn)dlsym(handle, "DNSServiceResolve"),
      (query_fn)dlsym(handle, "DNSServiceQueryRecord"),
      (socket_fn)dlsym(handle, "DNSServiceRefSockFD"),
      (process_fn)dlsym(handle, "DNSServiceProcessResult"),
      (deallocate_fn)dlsym(handle, "DNSServiceRefDeallocate"),
  };
  if (!found.register_service || !found.browse || !found.resolve || !found.query_record || !found.socket ||
      !found.process || !found.deallocate) {
    *message = "the library lacks one of DNSServiceRegister, DNSServiceBrowse, DNSServiceResolve, "
               "DNSServiceQueryRecord, DNSServiceRefSockFD, DNSServiceProcessResult, DNSServiceRefDeallocate";
    if (library) dlclose(handle);
    result = -1;
    goto done;
  }
  if (loaded) {
    if (library) dlclose(handle);  // an earlier load won; this one only checked
  } else {
    calls = found;  // the handle stays open for the life of the process
    loaded = 1;
  }
done:
  pthread_mutex_unlock(&load_lock);
  return result;
}

int32_t sb_dnssd_register(sb_dnssd_ref *ref, uint32_t flags, uint32_t interface, const char *name,
                          const char *type, const char *domain, const char *host, uint16_t port_network_order,
                          uint16_t txt_length, const void *txt, sb_dnssd_register_reply reply, void *context) {
  if (!loaded) return not_loaded;
  return calls.register_service(ref, flags, interface, name, type, domain, host, port_network_order, txt_length,
                                txt, reply, context);
}

int32_t sb_dnssd_browse(sb_dnssd_ref *ref, uint32_t flags, uint32_t interface, const char *type,
                        const char *domain, sb_dnssd_browse_reply reply, void *context) {
  if (!loaded) return not_loaded;
  return calls.browse(ref, flags, interface, type, domain, reply, context);
}

int32_t sb_dnssd_resolve(sb_dnssd_ref *ref, uint32_t flags, uint32_t interface, const char *name,
                         const char *type, const char *domain, sb_dnssd_resolve_reply reply, void *context) {
  if (!loaded) return not_loaded;
  return calls.resolve(ref, flags, interface, name, type, domain, reply, context);
}

int32_t sb_dnssd_query_record(sb_dnssd_ref *ref, uint32_t flags, uint32_t interface, const char *full_name,
                              uint16_t type, uint16_t record_class, sb_dnssd_query_reply reply, void *context) {
  if (!loaded) return not_loaded;
  return calls.query_record(ref, flags, interface, full_name, type, record_class, reply, context);
}

int sb_dnssd_socket(sb_dnssd_ref ref) { return loaded ? calls.socket(ref) : -1; }

int32_t sb_dnssd_process(sb_dnssd_ref ref) { return loaded ? calls.process(ref) : not_loaded; }

void sb_dnssd_deallocate(sb_dnssd_ref ref) {
  if (loaded) calls.deallocate(ref);
}
