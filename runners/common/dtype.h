/*
 * dtype.h — element types of the native suites and exact host conversions (bf16, fp16, fp8 e4m3 / e4m3fnuz),
 * used to build host references from device data.
 *
 * Ownership: pure functions, nothing allocated.
 */
#ifndef BENCH_DTYPE_H
#define BENCH_DTYPE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

enum dtype { DT_FP32, DT_FP16, DT_BF16, DT_FP8E4M3, DT_INVALID };

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
	return DT_INVALID;
}

static inline size_t dtype_size(enum dtype t)
{
	return t == DT_FP32 ? 4 : t == DT_FP8E4M3 ? 1 : 2;
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

#endif
