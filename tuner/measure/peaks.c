/* peaks.c - roofline ceilings from a device's record (see peaks.h). */
#include "peaks.h"

#include <stdio.h>
#include <string.h>

static int64_t prop(const mmt_device_info *d, const char *name)
{
    int64_t v = 0;
    return mmt_device_get_prop(d, name, strlen(name), &v) == 0 ? v : 0;
}

/* FLOP per clock per SM, by compute capability, on CUDA cores (f32, f64) and on the tensor
 * cores, dense, with fp32 accumulation (16-bit inputs, tf32, FP8). 0: no figure kept here
 * (consumer parts' tensor cores accumulate fp32 at a rate that differs by product). */
static const struct {
    int cc;
    int f32, f64, tensor16, tf32, fp8;
} sm_rates[] = {
    /*  cc   f32  f64  bf16/f16  tf32  fp8 */
    {70, 128, 64, 1024, 0, 0},  /* V100 */
    {75, 128, 4, 1024, 0, 0},   /* T4 */
    {80, 128, 64, 2048, 1024, 0}, /* A100 */
    {86, 256, 4, 0, 0, 0},      /* GA10x */
    {89, 256, 4, 0, 0, 0},      /* AD10x */
    {90, 256, 128, 4096, 2048, 8192}, /* H100, H200 */
};

static mmt_peak gpu_flops(const mmt_device_info *d, mmt_mode mode)
{
    mmt_peak p = {0};
    int cc = (int)(10 * prop(d, "cc_major") + prop(d, "cc_minor"));
    int64_t sms = prop(d, "sm_count"), khz = prop(d, "clock_khz");
    int rate = 0;
    for (size_t i = 0; i < sizeof sm_rates / sizeof *sm_rates; i++)
        if (sm_rates[i].cc == cc) {
            switch (mode) {
            case MMT_MODE_F32: rate = sm_rates[i].f32; break;
            case MMT_MODE_F64: rate = sm_rates[i].f64; break;
            case MMT_MODE_BF16:
            case MMT_MODE_F16: rate = sm_rates[i].tensor16; break;
            case MMT_MODE_TF32:
            case MMT_MODE_F32X3: rate = sm_rates[i].tf32; break;
            case MMT_MODE_E4M3:
            case MMT_MODE_E5M2:
            case MMT_MODE_E4M3_BLOCK:
            case MMT_MODE_E5M2_BLOCK:
            case MMT_MODE_E4M3_E5M2:
            case MMT_MODE_E5M2_E4M3: rate = sm_rates[i].fp8; break;
            }
        }
    if (!rate) {
        snprintf(p.source, sizeof p.source, "no per-SM rate of %s on sm_%d is kept in mmtune", mmt_mode_name(mode), cc);
        return p;
    }
    if (!sms || !khz) {
        snprintf(p.source, sizeof p.source,
                 "the device row records no %s (a row last written before mmtune recorded it: a tune on the device does)",
                 sms ? "clock" : "SM count");
        return p;
    }
    /* f32x3 counts 2mnk FLOPs for three tf32 products */
    double per = mode == MMT_MODE_F32X3 ? rate / 3.0 : rate;
    p.value = (double)sms * (double)khz * 1e3 * per / 1e9;
    snprintf(p.source, sizeof p.source,
             "%lld SMs x %.0f MHz (the driver's clock) x %d FLOP per clock per SM (%s on sm_%d%s): %.0f GFLOP/s",
             (long long)sms, khz / 1e3, rate,
             mode == MMT_MODE_F32 || mode == MMT_MODE_F64 ? "CUDA cores, FMA" : "tensor cores, dense", cc,
             mode == MMT_MODE_F32X3 ? "; tf32's rate / 3, three products each" : "", p.value);
    return p;
}

static mmt_peak cpu_flops(const mmt_device_info *d, mmt_mode mode)
{
    mmt_peak p = {0};
    int64_t cpus = prop(d, "cores"), mhz = prop(d, "mhz"), isa = prop(d, "isa");
    if (mode != MMT_MODE_F32 && mode != MMT_MODE_F64) {
        snprintf(p.source, sizeof p.source, "a CPU has no %s template", mmt_mode_name(mode));
        return p;
    }
    if (!cpus || !mhz) {
        snprintf(p.source, sizeof p.source,
                 "the device row records no %s (a row last written before mmtune recorded it: a tune on the device does)",
                 cpus ? "clock" : "CPU count");
        return p;
    }
    /* two FMA units a core, each of 4 (SSE: an add and a multiply), 8 (AVX2) or 16 (AVX-512) f32 lanes */
    static const int lanes[] = {4, 8, 16};
    static const char *const isa_names[] = {"SSE: a 4-lane add and multiply", "AVX2: two 8-lane FMA units",
                                            "AVX-512: two 16-lane FMA units"};
    int i = isa >= 0 && isa <= 2 ? (int)isa : 0;
    int per = 2 * 2 * lanes[i] / (mode == MMT_MODE_F64 ? 2 : 1);
    p.value = (double)cpus * (double)mhz * 1e6 * per / 1e9;
    snprintf(p.source, sizeof p.source,
             "%lld CPUs x %lld MHz x %d %s FLOP per clock (%s a core, assumed; CPUs as the probe counted them: "
             "SMT siblings share one core's units): %.0f GFLOP/s",
             (long long)cpus, (long long)mhz, per, mmt_mode_name(mode), isa_names[i], p.value);
    return p;
}

mmt_peak mmt_peak_flops(const mmt_device_info *d, mmt_mode mode)
{
    return strcmp(d->backend, "cuda") == 0 ? gpu_flops(d, mode) : cpu_flops(d, mode);
}

mmt_peak mmt_peak_bandwidth(const mmt_device_info *d)
{
    mmt_peak p = {0};
    int64_t khz = prop(d, "mem_clock_khz"), bits = prop(d, "mem_bus_bits");
    if (strcmp(d->backend, "cuda") != 0) {
        snprintf(p.source, sizeof p.source,
                 "no record holds a CPU's memory bandwidth (mmtune report measures it on the CPU it runs on)");
        return p;
    }
    if (!khz || !bits) {
        snprintf(p.source, sizeof p.source,
                 "the device row records no memory clock or bus width (a row last written before mmtune recorded "
                 "them: a tune on the device does)");
        return p;
    }
    p.value = 2.0 * (double)khz * 1e3 * (double)bits / 8 / 1e9;
    snprintf(p.source, sizeof p.source,
             "2 transfers a clock x %.0f MHz memory clock x %lld-bit bus (the driver's figures): %.0f GB/s", khz / 1e3,
             (long long)bits, p.value);
    return p;
}

double mmt_problem_min_bytes(const mmt_problem *p)
{
    double in = mmt_dtype_size(p->dtype), out = mmt_dtype_size(p->out);
    double m = (double)p->m, n = (double)p->n, k = (double)p->k;
    return in * (m * k + k * n) + out * m * n;
}
