/* test_half.c - the bf16, f16 and FP8 conversions of src/half.c: every bit pattern survives a
 * round trip, ties round to even, overflow gives infinity, NaN stays NaN, f16 subnormals
 * and underflow; and, for random values, agreement with independent oracles (bf16: the
 * usual integer rounding of an f32's bits; f16: GCC's _Float16 where the compiler has it). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "half.h"

typedef struct format {
    const char *name;
    uint16_t (*from)(double);
    double (*to)(uint16_t);
    int mbits;
    double max; /* the largest finite value */
} format;

static const format bf16 = {"bf16", mmt_bf16_from_double, mmt_bf16_to_double, 7, 0x1.FEp127};
static const format f16 = {"f16", mmt_f16_from_double, mmt_f16_to_double, 10, 65504.0};

static int is_nan_bits(const format *f, uint16_t b)
{
    int ebits = 15 - f->mbits;
    return ((b >> f->mbits) & ((1u << ebits) - 1)) == (1u << ebits) - 1 && (b & ((1u << f->mbits) - 1));
}

/* Every pattern widens to a value that narrows back to the same pattern (NaN to a NaN of
 * the same sign), and the widened values increase with the patterns. */
static void test_round_trips(const format *f)
{
    int bad = 0;
    double prev = -INFINITY;
    for (uint32_t b = 0; b <= 0xFFFF; b++) {
        double v = f->to((uint16_t)b);
        uint16_t back = f->from(v);
        if (is_nan_bits(f, (uint16_t)b)) {
            if (!isnan(v) || !is_nan_bits(f, back) || (back >> 15) != (b >> 15)) bad++;
            continue;
        }
        if (back != b && !(v == 0 && (b & 0x7FFF) == 0 && back == b)) bad++;
        if (b >> 15 == 0 && b > 0 && !isnan(v) && !(v > prev)) bad++; /* positives increase */
        if (b >> 15 == 0) prev = v;
    }
    if (bad) fprintf(stderr, "%s: %d round-trip failures\n", f->name, bad);
    CHECK_EQ_INT(bad, 0);
}

static void test_rules(const format *f)
{
    const double ulp1 = ldexp(1.0, -f->mbits); /* spacing just above 1 */
    uint16_t one = f->from(1.0);
    /* ties to even: 1 + ulp/2 is a tie between 1 (even) and 1 + ulp (odd) */
    CHECK_EQ_INT(f->from(1.0 + ulp1 / 2), one);
    CHECK_EQ_INT(f->from(1.0 + 1.5 * ulp1), one + 2); /* tie between odd and even: up */
    CHECK_EQ_INT(f->from(1.0 + ulp1 / 2 + ldexp(1.0, -40)), one + 1); /* past the tie: up */
    CHECK_EQ_INT(f->from(-(1.0 + ulp1 / 2)), one | 0x8000);
    /* a tie decided on bits a float would have rounded away first (no double rounding) */
    CHECK_EQ_INT(f->from(1.0 + ulp1 / 2 + ldexp(1.0, -52)), one + 1);
    /* overflow: the largest finite value stays, half an ulp above it is infinity */
    double top_ulp = ldexp(1.0, (int)floor(log2(f->max)) - f->mbits);
    CHECK(f->to(f->from(f->max)) == f->max);
    CHECK(f->to(f->from(f->max + top_ulp / 4)) == f->max);
    CHECK(isinf(f->to(f->from(f->max + top_ulp / 2))));
    CHECK(isinf(f->to(f->from(1e300))) && f->to(f->from(-1e300)) < 0);
    CHECK(f->to(f->from(INFINITY)) == INFINITY);
    CHECK(f->to(f->from(-INFINITY)) == -INFINITY);
    /* NaN stays NaN, with its sign */
    CHECK(isnan(f->to(f->from(NAN))));
    CHECK(is_nan_bits(f, f->from(-NAN)) && (f->from(-NAN) >> 15) == 1);
    /* signed zeros */
    CHECK_EQ_INT(f->from(0.0), 0);
    CHECK_EQ_INT(f->from(-0.0), 0x8000);
}

static void test_f16_subnormals(void)
{
    const double tiny = ldexp(1.0, -24); /* the smallest f16 subnormal */
    CHECK_EQ_INT(mmt_f16_from_double(tiny), 0x0001);
    CHECK_EQ_INT(mmt_f16_from_double(-tiny), 0x8001);
    CHECK_EQ_INT(mmt_f16_from_double(3 * tiny), 0x0003);
    CHECK_EQ_INT(mmt_f16_from_double(2.5 * tiny), 0x0002); /* tie: to even */
    CHECK_EQ_INT(mmt_f16_from_double(3.5 * tiny), 0x0004);
    CHECK_EQ_INT(mmt_f16_from_double(tiny / 2), 0x0000);   /* tie with zero: to even (zero) */
    CHECK_EQ_INT(mmt_f16_from_double(tiny * 0.5000001), 0x0001);
    CHECK_EQ_INT(mmt_f16_from_double(-tiny / 4), 0x8000);  /* underflow keeps the sign */
    CHECK_EQ_INT(mmt_f16_from_double(ldexp(1.0, -14)), 0x0400); /* the smallest normal */
    CHECK_EQ_INT(mmt_f16_from_double(ldexp(1.0, -14) - tiny / 2), 0x0400); /* tie, carries up */
    CHECK_EQ_INT(mmt_f16_from_double(ldexp(1023, -24)), 0x03FF); /* the largest subnormal */
    CHECK(mmt_f16_to_double(0x0001) == tiny);
    CHECK(mmt_f16_to_double(0x03FF) == ldexp(1023, -24));
    CHECK(mmt_f16_to_double(0x3C00) == 1.0);
    CHECK(mmt_f16_to_double(0xC000) == -2.0);
    CHECK(mmt_f16_to_double(0x7BFF) == 65504.0);
    CHECK(mmt_bf16_to_double(0x3F80) == 1.0);
    CHECK(mmt_bf16_to_double(0x0001) == ldexp(1.0, -133)); /* bf16 subnormals are f32's */
    CHECK_EQ_INT(mmt_bf16_from_double(ldexp(1.0, -133)), 0x0001);
    CHECK_EQ_INT(mmt_bf16_from_double(ldexp(1.0, -135)), 0x0000);
}

static uint64_t rng = 0x243F6A8885A308D3ull;
static uint64_t next(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

/* Random doubles over the formats' ranges against independent oracles. */
static void test_oracles(void)
{
    int bad_bf = 0, bad_h = 0;
    for (int i = 0; i < 1000000; i++) {
        /* random finite float bits: every exponent, including subnormals */
        uint32_t u = (uint32_t)next();
        if (((u >> 23) & 0xFF) == 0xFF) continue;
        float x;
        memcpy(&x, &u, 4);
        uint32_t r = u + 0x7FFF + ((u >> 16) & 1); /* the usual f32 -> bf16 rounding */
        if (mmt_bf16_from_float(x) != (uint16_t)(r >> 16)) bad_bf++;
#ifdef __FLT16_MAX__
        double d = ldexp((double)(next() >> 11) / 9007199254740992.0, (int)(next() % 44) - 30);
        if (next() & 1) d = -d;
        _Float16 h = (_Float16)d;
        uint16_t hb;
        memcpy(&hb, &h, 2);
        if (mmt_f16_from_double(d) != hb) bad_h++;
#endif
    }
    if (bad_bf || bad_h) fprintf(stderr, "oracle mismatches: bf16 %d, f16 %d\n", bad_bf, bad_h);
    CHECK_EQ_INT(bad_bf, 0);
    CHECK_EQ_INT(bad_h, 0);
}

/* FP8: every one of the 256 codes widens to a value that narrows back to it (a NaN to a
 * NaN of its sign), the positive ones increasing; the formats' limits, subnormals and ties;
 * e4m3 saturates at 448 (it has no infinity), e5m2 overflows to infinity. */
static void test_fp8(void)
{
    int bad = 0;
    double prev[2] = {-INFINITY, -INFINITY};
    for (uint32_t b = 0; b < 256; b++) {
        const double v[2] = {mmt_e4m3_to_double((uint8_t)b), mmt_e5m2_to_double((uint8_t)b)};
        const uint8_t back[2] = {mmt_e4m3_from_double(v[0]), mmt_e5m2_from_double(v[1])};
        for (int f = 0; f < 2; f++) {
            if (isnan(v[f])) {
                if (!isnan(f ? mmt_e5m2_to_double(back[f]) : mmt_e4m3_to_double(back[f])) || back[f] >> 7 != b >> 7) bad++;
                continue;
            }
            if (back[f] != b) bad++;
            if (b < 128 && b > 0 && !(v[f] > prev[f])) bad++;
            if (b < 128) prev[f] = v[f];
        }
    }
    if (bad) fprintf(stderr, "fp8: %d round-trip failures\n", bad);
    CHECK_EQ_INT(bad, 0);
    /* e4m3: 0x7F is NaN and 0x7E the largest finite, 448; no infinity */
    CHECK(isnan(mmt_e4m3_to_double(0x7F)) && isnan(mmt_e4m3_to_double(0xFF)));
    CHECK(mmt_e4m3_to_double(0x7E) == 448.0 && mmt_e4m3_to_double(0x78) == 256.0);
    CHECK_EQ_INT(mmt_e4m3_from_double(1000.0), 0x7E);
    CHECK_EQ_INT(mmt_e4m3_from_double(-INFINITY), 0xFE);
    CHECK_EQ_INT(mmt_e4m3_from_double(470.0), 0x7E); /* would round to 480, the NaN's code */
    CHECK_EQ_INT(mmt_e4m3_from_double(NAN), 0x7F);
    CHECK(mmt_e4m3_to_double(0x01) == ldexp(1.0, -9) && mmt_e4m3_to_double(0x08) == ldexp(1.0, -6));
    CHECK_EQ_INT(mmt_e4m3_from_double(ldexp(1.0, -10)), 0x00);       /* a tie with zero: even */
    CHECK_EQ_INT(mmt_e4m3_from_double(ldexp(1.5, -10)), 0x01);       /* past it */
    CHECK_EQ_INT(mmt_e4m3_from_double(1.0), 0x38);
    CHECK_EQ_INT(mmt_e4m3_from_double(1.0 + 1.0 / 16), 0x38);        /* 1 + ulp/2: ties to even */
    CHECK_EQ_INT(mmt_e4m3_from_double(1.0 + 3.0 / 16), 0x3A);        /* odd and even: up */
    CHECK_EQ_INT(mmt_e4m3_from_double(-1.0 - 1.0 / 16 - 1e-9), 0xB9); /* past the tie */
    /* e5m2: IEEE's rules, 57344 the largest finite */
    CHECK(mmt_e5m2_to_double(0x7B) == 57344.0 && isinf(mmt_e5m2_to_double(0x7C)));
    CHECK_EQ_INT(mmt_e5m2_from_double(1e6), 0x7C);
    CHECK_EQ_INT(mmt_e5m2_from_double(-61440.0), 0xFC); /* a tie past the largest: infinity */
    CHECK(mmt_e5m2_to_double(0x01) == ldexp(1.0, -16));
    CHECK_EQ_INT(mmt_e5m2_from_double(1.0 + 1.0 / 8), 0x3C); /* ties to even */
    CHECK_EQ_INT(mmt_e5m2_from_double(1.0 + 3.0 / 8), 0x3E);
}

int main(void)
{
    test_fp8();
    test_round_trips(&bf16);
    test_round_trips(&f16);
    test_rules(&bf16);
    test_rules(&f16);
    test_f16_subnormals();
    test_oracles();
    return check_result();
}
