/* mmt_fp8.h - FP8 C's conversions (spliced in where included, after C_F8: "e4m3" or "e5m2"):
 * one element widened to fp32 (exact: every FP8 value is an f16), and two rounded to
 * nearest by one conversion, saturated at the largest finite value (satfinite; NaN stays
 * NaN), v0 in the low byte (the lower address). */
__device__ __forceinline__ float fp8_to_f32(unsigned char x)
{
    float f;
    asm("{\n.reg .b16 lo, hi;\n.reg .b32 h2;\n"
        "cvt.rn.f16x2." C_F8 "x2 h2, %1;\nmov.b32 {lo, hi}, h2;\ncvt.f32.f16 %0, lo;\n}\n"
        : "=f"(f) : "h"((unsigned short)x));
    return f;
}

__device__ __forceinline__ unsigned short fp8_pair(float v0, float v1)
{
    unsigned short h;
    asm("cvt.rn.satfinite." C_F8 "x2.f32 %0, %1, %2;\n" : "=h"(h) : "f"(v1), "f"(v0));
    return h;
}
