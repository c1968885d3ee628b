/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rng.h — counter-based random inputs: element i of tensor t under seed s is a pure function of (s, t, i), so
 * the host and the device produce the same matrices without copying them, and any element can be recomputed.
 *
 * Ownership: pure functions, nothing allocated. Usable from C and from CUDA/HIP device code (RNG_FN).
 */
#ifndef BENCH_RNG_H
#define BENCH_RNG_H

#include <math.h>
#include <stdint.h>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define RNG_FN __host__ __device__ static inline
#else
#define RNG_FN static inline
#endif

enum rng_init { RNG_NORMAL = 0, RNG_UNIFORM = 1, RNG_ZEROS = 2 };

RNG_FN uint64_t rng_mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* uniform in (0, 1], 24 bits */
RNG_FN float rng_unit(uint64_t h)
{
	return ((float)(h >> 40) + 1.0f) * (1.0f / 16777216.0f);
}

RNG_FN float rng_value(uint64_t seed, uint32_t tensor, uint64_t i, int init)
{
	uint64_t h = rng_mix(seed * 0x100000001b3ull ^ ((uint64_t)tensor << 56) ^ i);

	if (init == RNG_ZEROS)
		return 0.0f;
	if (init == RNG_UNIFORM)
		return 2.0f * rng_unit(h) - 1.0f;
	/* Box–Muller from two independent halves */
	{
		float u1 = rng_unit(h), u2 = rng_unit(rng_mix(h));

		return sqrtf(-2.0f * logf(u1)) * cosf(6.28318530717958647692f * u2);
	}
}

#endif
