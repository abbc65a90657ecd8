/* hash.c - SHA-256 through OpenSSL's EVP interface (see hash.h). */
#include "hash.h"

#include <openssl/evp.h>
#include <stdint.h>
#include <string.h>

struct mmt_hash {
    EVP_MD_CTX *md;
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

mmt_hash *mmt_hash_begin(void)
{
    static struct mmt_hash failed; /* EVP failures are out-of-memory; hash stays usable */
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
    return h;
}

void mmt_hash_add(mmt_hash *h, const void *data, size_t size)
{
    if (!h->md) return;
    uint64_t n = size;
    EVP_DigestUpdate(h->md, &n, sizeof n);
    EVP_DigestUpdate(h->md, data, size);
}

void mmt_hash_add_str(mmt_hash *h, const char *s) { mmt_hash_add(h, s ? s : "", s ? strlen(s) : 0); }

void mmt_hash_end(mmt_hash *h, char hex[65])
{
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned n = 0;
    if (!h->md) {
        memset(hex, '0', 64);
        hex[64] = '\0';
        return;
    }
    EVP_DigestFinal_ex(h->md, d, &n);
    EVP_MD_CTX_free(h->md);
    OPENSSL_free(h);
    to_hex(d, n, hex);
}

void mmt_sha256_hex(const void *data, size_t size, char hex[65])
{
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned n = 0;
    if (EVP_Digest(data, size, d, &n, EVP_sha256(), NULL) != 1) {
        memset(hex, '0', 64);
        hex[64] = '\0';
        return;
    }
    to_hex(d, n, hex);
}
