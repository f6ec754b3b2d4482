// Includes and wrappers for OpenSSL macros, which Swift cannot import.
#pragma once
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/opensslv.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/crypto.h>

static inline void copenssl_free(void *_Nullable p) { OPENSSL_free(p); }
static inline int copenssl_ctx_set_min_proto_version(SSL_CTX *_Nonnull c, int v) { return SSL_CTX_set_min_proto_version(c, v); }
static inline int copenssl_set_tlsext_host_name(SSL *_Nonnull s, const char *_Nonnull n) { return SSL_set_tlsext_host_name(s, n); }
static inline long copenssl_bio_get_mem_data(BIO *_Nonnull b, char *_Nullable *_Nonnull p) { return BIO_get_mem_data(b, p); }
static inline const char *_Nonnull copenssl_version_text(void) { return OpenSSL_version(OPENSSL_VERSION); }
static inline int copenssl_selection_public_key(void) { return EVP_PKEY_PUBLIC_KEY; }
