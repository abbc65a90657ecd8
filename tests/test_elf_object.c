/* test_elf_object.c - mmt_elf_object (src/elf_object.c) on this test's own executable: an
 * object's initial bytes by name, not an object of another size or name, and damaged images
 * (truncated, header and section fields overwritten with random values; under the
 * sanitizers' pass too) answer -1 without reading past their end. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "elf_object.h"

typedef struct probe {
    int32_t a, b;
    int64_t c;
} probe;

/* external, initialised, read below: in the executable's symbol table with these bytes */
const probe mmt_test_elf_probe = {7, -3, (int64_t)1 << 40};

static unsigned char *read_self(size_t *size)
{
    FILE *f = fopen("/proc/self/exe", "rb");
    if (!f) return NULL;
    size_t cap = 1 << 20, n = 0, got;
    unsigned char *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            unsigned char *more = realloc(buf, cap *= 2);
            if (!more) free(buf);
            buf = more;
        }
    }
    fclose(f);
    *size = n;
    return buf;
}

static uint64_t next(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 11;
}

int main(void)
{
    size_t size = 0;
    unsigned char *img = read_self(&size);
    CHECK(img != NULL && size > 64);
    if (!img) return check_result();
    probe got = {0};
    CHECK_EQ_INT(mmt_elf_object(img, size, "mmt_test_elf_probe", &got, sizeof got), 0);
    CHECK_EQ_INT(got.a, mmt_test_elf_probe.a);
    CHECK_EQ_INT(got.b, -3);
    CHECK_EQ_INT(got.c, (int64_t)1 << 40);
    /* another size, another name, a prefix of the name, a function: not found */
    CHECK_EQ_INT(mmt_elf_object(img, size, "mmt_test_elf_probe", &got, sizeof got - 1), -1);
    CHECK_EQ_INT(mmt_elf_object(img, size, "mmt_test_elf_prob", &got, sizeof got), -1);
    CHECK_EQ_INT(mmt_elf_object(img, size, "mmt_test_elf_probe_", &got, sizeof got), -1);
    CHECK_EQ_INT(mmt_elf_object(img, size, "main", &got, sizeof got), -1);
    CHECK_EQ_INT(mmt_elf_object(NULL, 0, "mmt_test_elf_probe", &got, sizeof got), -1);

    /* damaged copies: each truncation (a spread of lengths) and random overwrites of the
     * headers' bytes answer 0 with the right bytes or -1, never a read past the copy */
    int truncated_found = 0;
    for (size_t n = 0; n < size; n += n < 4096 ? 1 : 4093) {
        unsigned char *copy = malloc(n ? n : 1);
        memcpy(copy, img, n);
        probe p = {0};
        if (mmt_elf_object(copy, n, "mmt_test_elf_probe", &p, sizeof p) == 0) {
            truncated_found++;
            CHECK(memcmp(&p, &mmt_test_elf_probe, sizeof p) == 0);
        }
        free(copy);
    }
    CHECK_EQ_INT(truncated_found, 0); /* the section headers come last: every truncation cuts them */
    uint64_t seed = 42;
    unsigned char *copy = malloc(size);
    int found = 0;
    for (int round = 0; round < 2000; round++) {
        memcpy(copy, img, size);
        for (int j = 0; j < 4; j++) { /* the ELF header or a byte anywhere in the file */
            const size_t at = j % 2 ? next(&seed) % 64 : next(&seed) % size;
            copy[at] = (unsigned char)next(&seed);
        }
        probe p;
        found += mmt_elf_object(copy, size, "mmt_test_elf_probe", &p, sizeof p) == 0;
    }
    printf("damaged copies: %d of 2000 still gave the object\n", found);
    CHECK(found > 0); /* most bytes of a file are not its tables */
    free(copy);
    free(img);
    return check_result();
}
