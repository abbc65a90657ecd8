/* test_peaks.c - roofline ceilings from device records (tuner/measure/peaks.c): the H100's and the
 * A100's published peaks from their SM counts and the driver's clocks, a CPU's from its
 * CPUs, ISA and clock, the rows that lack a figure say so (and give no number), and the
 * least traffic of a GEMM. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "peaks.h"

#define CHECK_NEAR(a, b, rel)                                                                                  \
    do {                                                                                                       \
        double a_ = (a), b_ = (b);                                                                             \
        if (!(fabs(a_ - b_) <= (rel) * fabs(b_))) {                                                            \
            fprintf(stderr, "%s:%d: CHECK failed: %s ~ %s (%.6g vs %.6g)\n", __FILE__, __LINE__, #a, #b, a_, b_); \
            check_failures_++;                                                                                 \
        }                                                                                                      \
    } while (0)

static mmt_device_info gpu(int cc_major, int cc_minor, int sms, int khz, int mem_khz, int bits)
{
    mmt_device_info d;
    memset(&d, 0, sizeof d);
    strcpy(d.backend, "cuda");
    mmt_device_set_prop(&d, "cc_major", cc_major);
    mmt_device_set_prop(&d, "cc_minor", cc_minor);
    mmt_device_set_prop(&d, "sm_count", sms);
    if (khz) mmt_device_set_prop(&d, "clock_khz", khz);
    if (mem_khz) mmt_device_set_prop(&d, "mem_clock_khz", mem_khz);
    if (bits) mmt_device_set_prop(&d, "mem_bus_bits", bits);
    return d;
}

static void test_gpus(void)
{
    /* H100 SXM as its driver reports it: 132 SMs, 1980 MHz, HBM3 at 2619 MHz on 5120 bits;
     * NVIDIA's figures: 66.9 TFLOP/s f32, 33.5 f64, 3.35 TB/s (the tensor figures are given
     * at a lower clock than the driver's: 989 TFLOP/s bf16 at 1830 MHz) */
    mmt_device_info h100 = gpu(9, 0, 132, 1980000, 2619000, 5120);
    CHECK_NEAR(mmt_peak_flops(&h100, MMT_MODE_F32).value, 66900, 0.001);
    CHECK_NEAR(mmt_peak_flops(&h100, MMT_MODE_F64).value, 33450, 0.001);
    CHECK_NEAR(mmt_peak_flops(&h100, MMT_MODE_BF16).value, 989400 * 1980.0 / 1830, 0.001);
    CHECK_NEAR(mmt_peak_flops(&h100, MMT_MODE_F32X3).value, mmt_peak_flops(&h100, MMT_MODE_TF32).value / 3, 1e-12);
    CHECK_NEAR(mmt_peak_bandwidth(&h100).value, 3352, 0.001);
    CHECK(strstr(mmt_peak_flops(&h100, MMT_MODE_F32).source, "132 SMs x 1980 MHz") != NULL);
    CHECK(strstr(mmt_peak_bandwidth(&h100).source, "5120-bit bus") != NULL);
    /* A100 40GB: 108 SMs at 1410 MHz: 19.5 TFLOP/s f32, 312 bf16, 156 tf32; 1555 GB/s */
    mmt_device_info a100 = gpu(8, 0, 108, 1410000, 1215000, 5120);
    CHECK_NEAR(mmt_peak_flops(&a100, MMT_MODE_F32).value, 19500, 0.01);
    CHECK_NEAR(mmt_peak_flops(&a100, MMT_MODE_BF16).value, 312000, 0.01);
    CHECK_NEAR(mmt_peak_flops(&a100, MMT_MODE_TF32).value, 156000, 0.01);
    CHECK_NEAR(mmt_peak_bandwidth(&a100).value, 1555, 0.001);
    /* a row of before the clocks were recorded: no number, and the reason */
    mmt_device_info old = gpu(9, 0, 132, 0, 0, 0);
    mmt_peak p = mmt_peak_flops(&old, MMT_MODE_F32);
    CHECK(p.value == 0 && strstr(p.source, "records no clock") != NULL);
    p = mmt_peak_bandwidth(&old);
    CHECK(p.value == 0 && strstr(p.source, "no memory clock") != NULL);
    /* a consumer part's tensor cores: no rate kept, said */
    mmt_device_info ada = gpu(8, 9, 128, 2520000, 10501000, 384);
    p = mmt_peak_flops(&ada, MMT_MODE_BF16);
    CHECK(p.value == 0 && strstr(p.source, "sm_89") != NULL);
    CHECK_NEAR(mmt_peak_flops(&ada, MMT_MODE_F32).value, 82575, 0.001); /* RTX 4090: 82.6 TFLOP/s */
    CHECK_NEAR(mmt_peak_bandwidth(&ada).value, 1008, 0.001);
}

static void test_cpus(void)
{
    mmt_device_info d;
    memset(&d, 0, sizeof d);
    strcpy(d.backend, "cpu");
    mmt_device_set_prop(&d, "isa", 2);
    mmt_device_set_prop(&d, "cores", 2);
    mmt_peak p = mmt_peak_flops(&d, MMT_MODE_F32);
    CHECK(p.value == 0 && strstr(p.source, "records no clock") != NULL);
    mmt_device_set_prop(&d, "mhz", 2600);
    /* 2 CPUs x 2.6 GHz x 2 FMA units x 16 lanes x 2 FLOP */
    CHECK_NEAR(mmt_peak_flops(&d, MMT_MODE_F32).value, 2 * 2.6 * 64, 1e-12);
    CHECK_NEAR(mmt_peak_flops(&d, MMT_MODE_F64).value, 2 * 2.6 * 32, 1e-12);
    mmt_device_set_prop(&d, "isa", 1);
    CHECK_NEAR(mmt_peak_flops(&d, MMT_MODE_F32).value, 2 * 2.6 * 32, 1e-12);
    CHECK(strstr(mmt_peak_flops(&d, MMT_MODE_F32).source, "AVX2") != NULL);
    CHECK(mmt_peak_flops(&d, MMT_MODE_BF16).value == 0);
    p = mmt_peak_bandwidth(&d);
    CHECK(p.value == 0 && strstr(p.source, "no record holds a CPU's memory bandwidth") != NULL);
}

static void test_bytes(void)
{
    mmt_problem p = {.dtype = MMT_BF16, .out = MMT_F32, .mode = MMT_MODE_BF16, .m = 64, .n = 48, .k = 40};
    CHECK_NEAR(mmt_problem_min_bytes(&p), 2.0 * (64 * 40 + 40 * 48) + 4.0 * 64 * 48, 0);
}

int main(void)
{
    test_gpus();
    test_cpus();
    test_bytes();
    return check_result();
}
