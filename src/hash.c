/* hash.c - SHA-256 through OpenSSL's EVP interface (see hash.h). */
#include "hash.h"

#include <openssl/evp.h>
#include <stdint.h>
#include <string.h>

struct mmt_hash {
    EVP_MD_CTX *md;
    int ok; /* every step succeeded */
};

static void to_hex(const unsigned char *d, unsigned n, char *hex)
{
    static const char digits[] = "0123456789abcdef";
    for (unsigned i = 0; i < n; i++) {
        hex[2 * i] = digits[d[i] >> 4];
        hex[2 * i + 1] = digits[d[i] & 15];
    }
    hex[2 * n] = '\0';
}

/* A digest that could not begin: adding to it does nothing, ending it fails. */
static struct mmt_hash failed;

mmt_hash *mmt_hash_begin(void)
{
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    if (!md || EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(md);
        return &failed;
    }
    mmt_hash *h = OPENSSL_malloc(sizeof *h);
    if (!h) {
        EVP_MD_CTX_free(md);
        return &failed;
    }
    h->md = md;
    h->ok = 1;
    return h;
}

void mmt_hash_add(mmt_hash *h, const void *data, size_t size)
{
    if (!h->md) return;
    uint64_t n = size;
    h->ok &= EVP_DigestUpdate(h->md, &n, sizeof n) == 1 && EVP_DigestUpdate(h->md, data, size) == 1;
}

void mmt_hash_add_str(mmt_hash *h, const char *s) { mmt_hash_add(h, s ? s : "", s ? strlen(s) : 0); }

mmt_status mmt_hash_end(mmt_hash *h, char hex[65], mmt_err *err)
{
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned n = 0;
    hex[0] = '\0';
    if (!h->md) return mmt_err_set(err, MMT_OUT_OF_MEMORY, "SHA-256 could not begin (libcrypto out of memory)");
    int ok = h->ok && EVP_DigestFinal_ex(h->md, d, &n) == 1 && n == 32;
    EVP_MD_CTX_free(h->md);
    OPENSSL_free(h);
    RETURN_ERROR_IF(!ok, err, MMT_OUT_OF_MEMORY, "SHA-256 failed (libcrypto out of memory)");
    to_hex(d, n, hex);
    return MMT_OK;
}

mmt_status mmt_sha256_hex(const void *data, size_t size, char hex[65], mmt_err *err)
{
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned n = 0;
    hex[0] = '\0';
    RETURN_ERROR_IF(EVP_Digest(data, size, d, &n, EVP_sha256(), NULL) != 1 || n != 32, err, MMT_OUT_OF_MEMORY,
                    "SHA-256 failed (libcrypto out of memory)");
    to_hex(d, n, hex);
    return MMT_OK;
}
