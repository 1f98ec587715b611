#ifndef SWITCHBOARD_COPENSSL_SHIM_H
#define SWITCHBOARD_COPENSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/sha.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/x509v3.h>

/* Function-like OpenSSL macros, wrapped so Swift can call them (SwitchboardTLS). */
static inline int sb_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
  return (int)SSL_CTX_set_min_proto_version(ctx, version);
}
static inline long sb_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
  return SSL_CTX_set_mode(ctx, mode);
}
static inline void sb_SSL_CTX_disable_renegotiation(SSL_CTX *ctx) {
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION);
}
static inline int sb_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
  return (int)SSL_set_tlsext_host_name(ssl, name);
}
static inline long sb_BIO_get_mem_data(BIO *bio, char **data) {
  return BIO_get_mem_data(bio, data);
}
static inline int sb_BIO_set_mem_eof_return(BIO *bio, int value) {
  return (int)BIO_set_mem_eof_return(bio, value);
}
/* Whether an error-queue entry says a private key does not belong to its certificate. */
static inline int sb_ERR_is_key_mismatch(unsigned long code) {
  return ERR_GET_LIB(code) == ERR_LIB_X509
    && (ERR_GET_REASON(code) == X509_R_KEY_VALUES_MISMATCH || ERR_GET_REASON(code) == X509_R_KEY_TYPE_MISMATCH);
}
/* Server side: SNI certificate choice. */
typedef int (*sb_servername_callback)(SSL *ssl, int *alert, void *arg);
static inline void sb_SSL_CTX_set_servername_callback(SSL_CTX *ctx, sb_servername_callback cb, void *arg) {
  SSL_CTX_set_tlsext_servername_callback(ctx, cb);
  SSL_CTX_set_tlsext_servername_arg(ctx, arg);
}
#endif
