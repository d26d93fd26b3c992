/*===- NormalTransform.h - Constants of the normal RNG transform ---*- C -*-===*
 *
 * `normal` turns two uniform words into a standard normal value with basic
 * IEEE operations only (+ - * /, a correctly rounded sqrt, integer and bit
 * operations), in a fixed order, so the CPU, the GPU and the runtime compute
 * it bit for bit alike. The steps are in Runtime.h; the constants are here,
 * shared by the compiler (compiler/Conversion/TDSLToLinalg/Philox.cpp) and the runtime
 * (runtime/lib/Random.cpp). test/Examples/Inputs/philox.py derives them
 * independently with exact rational arithmetic.
 *
 *===----------------------------------------------------------------------===*/
#ifndef TDSL_NORMALTRANSFORM_H
#define TDSL_NORMALTRANSFORM_H

/* The double nearest ln 2 and sqrt 2; f32 uses them rounded to float. */
#define TDSL_NORMAL_LN2 0x1.62e42fefa39efp-1
#define TDSL_NORMAL_SQRT2 0x1.6a09e667f3bcdp+0

/* log: ln m = s (2 + z Q(z)), s = (m - 1) / (m + 1), z = s^2, with
 * Q(z) = sum_{k=1..K} 2/(2k+1) z^(k-1): K = 5 for f32, 11 for f64. */
#define TDSL_NORMAL_LOG_TERMS_F32 5
#define TDSL_NORMAL_LOG_TERMS_F64 11
static const double tdsl_normal_log_coeffs[11] = {
    0x1.5555555555555p-1, 0x1.999999999999ap-2, 0x1.2492492492492p-2,
    0x1.c71c71c71c71cp-3, 0x1.745d1745d1746p-3, 0x1.3b13b13b13b14p-3,
    0x1.1111111111111p-3, 0x1.e1e1e1e1e1e1ep-4, 0x1.af286bca1af28p-4,
    0x1.8618618618618p-4, 0x1.642c8590b2164p-4};

/* cos(pi t / 2) = sum_n c_n t^(2n) and sin(pi t / 2) = t sum_n s_n t^(2n)
 * for |t| <= 1/2: c_n = (-1)^n (pi/2)^(2n) / (2n)!, s_n = (-1)^n
 * (pi/2)^(2n+1) / (2n+1)!, n < 6 for f32 and n < 10 for f64. */
#define TDSL_NORMAL_TRIG_TERMS_F32 6
#define TDSL_NORMAL_TRIG_TERMS_F64 10
static const double tdsl_normal_cos_coeffs[10] = {
    0x1.0000000000000p+0,  -0x1.3bd3cc9be45dep+0, 0x1.03c1f081b5ac4p-2,
    -0x1.55d3c7e3cbffap-6, 0x1.e1f506891babbp-11, -0x1.a6d1f2a204a8cp-16,
    0x1.f9d38a3763cc3p-22, -0x1.b6e24f44b128fp-28, 0x1.20c62c2f2d7f5p-34,
    -0x1.2a0c591af8314p-41};
static const double tdsl_normal_sin_coeffs[10] = {
    0x1.921fb54442d18p+0,  -0x1.4abbce625be53p-1, 0x1.466bc6775aae2p-4,
    -0x1.32d2cce62bd86p-8, 0x1.50783487ee782p-13, -0x1.e3074fde8871fp-19,
    0x1.e8f434d018d63p-25, -0x1.6fadb9f155744p-31, 0x1.aaec32af93359p-38,
    -0x1.8a404211f9547p-45};

#endif /* TDSL_NORMALTRANSFORM_H */
