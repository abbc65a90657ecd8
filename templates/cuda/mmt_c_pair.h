/* mmt_c_pair.h - one pair of C's elements out (spliced in where included, after the
 * template's TC and c_from): as one store where pair (C allows it and both are in C), else
 * each one that is in C; 16-bit and 8-bit C rounded once for either kind. Predicated stores, no
 * branch, which NVRTC would compile the stores after once for each way through. */
__device__ __forceinline__ void store_pair(TC *cp, float v0, float v1, bool pair, bool in0, bool in1)
{
#if MMT_OUT == 0
    if (pair) *reinterpret_cast<float2 *>(cp) = make_float2(v0, v1);
    if (!pair && in0) cp[0] = v0;
    if (!pair && in1) cp[1] = v1;
#elif MMT_OUT >= 4 /* FP8 C: both by one conversion (the template's c_from_pair) */
    const unsigned short pk = c_from_pair(v0, v1);
    if (pair) *reinterpret_cast<unsigned short *>(cp) = pk;
    if (!pair && in0) cp[0] = (TC)pk;
    if (!pair && in1) cp[1] = (TC)(pk >> 8);
#else
    const unsigned pk = (unsigned)c_from(v0) | (unsigned)c_from(v1) << 16;
    if (pair) *reinterpret_cast<unsigned *>(cp) = pk;
    if (!pair && in0) cp[0] = (TC)pk;
    if (!pair && in1) cp[1] = (TC)(pk >> 16);
#endif
}
