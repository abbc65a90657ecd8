/* hash.h - SHA-256 (OpenSSL's libcrypto) as lowercase hex: compile-cache keys and
 * template source hashes. */
#ifndef MMT_HASH_H
#define MMT_HASH_H

#include <stddef.h>

typedef struct mmt_hash mmt_hash;

/* Incremental: begin, add pieces (each piece is length-prefixed, so ("ab","c") and
 * ("a","bc") differ), end writes 64 hex digits + NUL into hex and frees h. */
mmt_hash *mmt_hash_begin(void);
void mmt_hash_add(mmt_hash *h, const void *data, size_t size);
void mmt_hash_add_str(mmt_hash *h, const char *s);
void mmt_hash_end(mmt_hash *h, char hex[65]);

/* One buffer at once (no length prefix: the plain SHA-256 of the bytes). */
void mmt_sha256_hex(const void *data, size_t size, char hex[65]);

#endif
