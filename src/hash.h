/* hash.h - SHA-256 (OpenSSL's libcrypto) as lowercase hex: compile-cache keys and
 * template source hashes. */
#ifndef MMT_HASH_H
#define MMT_HASH_H

#include <stddef.h>

#include "err.h"

typedef struct mmt_hash mmt_hash;

/* Incremental: begin, add pieces (each piece is length-prefixed, so ("ab","c") and
 * ("a","bc") differ), end writes 64 hex digits + NUL into hex and frees h. A digest that
 * failed anywhere (libcrypto out of memory) ends in MMT_OUT_OF_MEMORY and an empty hex:
 * never a digest that others would share. */
mmt_hash *mmt_hash_begin(void);
void mmt_hash_add(mmt_hash *h, const void *data, size_t size);
void mmt_hash_add_str(mmt_hash *h, const char *s);
mmt_status mmt_hash_end(mmt_hash *h, char hex[65], mmt_err *err);

/* One buffer at once (no length prefix: the plain SHA-256 of the bytes). */
mmt_status mmt_sha256_hex(const void *data, size_t size, char hex[65], mmt_err *err);

#endif
