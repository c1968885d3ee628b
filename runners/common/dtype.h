/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dtype.h — element types of the native suites and exact host conversions (bf16, fp16, fp8 e4m3 / e4m3fnuz,
 * e5m2 / e5m2fnuz), used to build host references from device data, and the fp8 encoder the HIP fill kernel runs.
 *
 * Ownership: pure functions, nothing allocated.
 */
#ifndef BENCH_DTYPE_H
#define BENCH_DTYPE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* DT_FP8E5M2 as an element type is e5m2; as a GEMM dtype ("fp8e5m2") it is the backward pass's mixed GEMM:
 * A (the gradient) in e5m2, B (the weight) in e4m3 (gemm.h: gemm_operand_dtype). */
enum dtype { DT_FP32, DT_FP16, DT_BF16, DT_FP8E4M3, DT_FP8E5M2, DT_INVALID };

#if defined(__CUDACC__) || defined(__HIPCC__)
#define DTYPE_FN __host__ __device__ static inline
#else
#define DTYPE_FN static inline
#endif

static inline enum dtype dtype_parse(const char *s)
{
	if (!strcmp(s, "fp32"))
		return DT_FP32;
	if (!strcmp(s, "fp16"))
		return DT_FP16;
	if (!strcmp(s, "bf16"))
		return DT_BF16;
	if (!strcmp(s, "fp8e4m3"))
		return DT_FP8E4M3;
	if (!strcmp(s, "fp8e5m2"))
		return DT_FP8E5M2;
	return DT_INVALID;
}

static inline int dtype_is_fp8(enum dtype t)
{
	return t == DT_FP8E4M3 || t == DT_FP8E5M2;
}

static inline size_t dtype_size(enum dtype t)
{
	return t == DT_FP32 ? 4 : dtype_is_fp8(t) ? 1 : 2;
}

static inline float bf16_to_float(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;

	memcpy(&f, &u, 4);
	return f;
}

static inline uint16_t float_to_bf16(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return 0x7fc0;
	u += 0x7fffu + ((u >> 16) & 1u); /* round to nearest even */
	return (uint16_t)(u >> 16);
}

static inline float fp16_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
	float f;

	if (exp == 0)
		f = ldexpf((float)man, -24);
	else if (exp == 31)
		f = man ? NAN : INFINITY;
	else
		f = ldexpf((float)(man | 0x400), (int)exp - 25);
	return sign ? -f : f;
}

/* OCP e4m3 (NVIDIA): bias 7, no infinities, S.1111.111 is NaN. fnuz (MI300): bias 8, 0x80 is NaN. */
static inline float fp8e4m3_to_float(uint8_t v, int fnuz)
{
	int sign = v >> 7, exp = (v >> 3) & 0xf, man = v & 7, bias = fnuz ? 8 : 7;
	float f;

	if (fnuz && v == 0x80)
		return NAN;
	if (!fnuz && (v & 0x7f) == 0x7f)
		return NAN;
	if (exp == 0)
		f = ldexpf((float)man, 1 - bias - 3);
	else
		f = ldexpf((float)(man | 8), exp - bias - 3);
	return sign ? -f : f;
}

/* OCP e5m2 (NVIDIA, gfx950): bias 15, IEEE-like: S.11111.00 is infinity, S.11111.{01,10,11} NaN.
 * fnuz (gfx942): bias 16, no infinities, no negative zero: 0x80 is NaN, exponent 31 holds finite values. */
static inline float fp8e5m2_to_float(uint8_t v, int fnuz)
{
	int sign = v >> 7, exp = (v >> 2) & 0x1f, man = v & 3, bias = fnuz ? 16 : 15;
	float f;

	if (fnuz && v == 0x80)
		return NAN;
	if (!fnuz && exp == 31)
		return man ? NAN : sign ? -INFINITY : INFINITY;
	if (exp == 0)
		f = ldexpf((float)man, 1 - bias - 2);
	else
		f = ldexpf((float)(man | 4), exp - bias - 2);
	return sign ? -f : f;
}

/* x as the bits of an fp8 with mbits mantissa bits (3: e4m3, 2: e5m2) and exponent bias, round to nearest even,
 * saturated to the largest finite value maxv (e4m3 448, e4m3fnuz 240, e5m2 and e5m2fnuz 57344, as the CUDA
 * conversions' satfinite); NaN is 0x7f (OCP) or 0x80 (fnuz: no negative zero, -0 becomes 0). The inverse of
 * fp8e4m3_to_float / fp8e5m2_to_float on their finite values. */
DTYPE_FN unsigned char fp8_bits(float x, int mbits, int bias, float maxv, int fnuz)
{
	unsigned char sign = signbit(x) ? 0x80 : 0;
	float a = fabsf(x), r;
	int e, ex;

	if (a != a)
		return fnuz ? 0x80 : 0x7f;
	a = fminf(a, maxv);
	frexpf(a, &e);
	ex = e - 1 < 1 - bias ? 1 - bias : e - 1; /* a's binade; subnormals share the lowest */
	r = fminf(rintf(ldexpf(a, mbits - ex)) * ldexpf(1.0f, ex - mbits), maxv);
	if (r == 0.0f)
		return fnuz ? 0 : sign;
	frexpf(r, &e);
	if (e - 1 < 1 - bias) /* subnormal: exponent field 0 */
		return sign | (unsigned char)ldexpf(r, bias - 1 + mbits);
	return sign | (unsigned char)(((e - 1 + bias) << mbits) | ((unsigned)ldexpf(r, mbits + 1 - e) - (1u << mbits)));
}

/* The device's e4m3 / e5m2 bits of x (fnuz: gfx942's variants). */
DTYPE_FN unsigned char fp8e4m3_bits(float x, int fnuz)
{
	return fp8_bits(x, 3, fnuz ? 8 : 7, fnuz ? 240.0f : 448.0f, fnuz);
}

DTYPE_FN unsigned char fp8e5m2_bits(float x, int fnuz)
{
	return fp8_bits(x, 2, fnuz ? 16 : 15, 57344.0f, fnuz);
}

#endif
