/* SPDX-License-Identifier: Apache-2.0 */
// gpu_kernels.cu — device kernels shared by the native runners: deterministic input fill and the memory
// bandwidth kernels. One source for CUDA and HIP through gpu.h.
#include "gpu.h"
#include "rng.h"
#include "dtype.h"
#include "../coll/coll.h"

#if defined(BENCH_HIP)
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#if __has_include(<hip/hip_bf16.h>) /* ROCm >= 6 */
#include <hip/hip_bf16.h>
typedef __hip_bfloat16 bf16_t;
#define BF16_FROM(x) __float2bfloat16(x)
#define BF16_TO(x) __bfloat162float(x)
#else /* older HIP (Debian's 5.2): the hip_bfloat16 class */
#include <hip/hip_bfloat16.h>
typedef hip_bfloat16 bf16_t;
#define BF16_FROM(x) hip_bfloat16(x)
#define BF16_TO(x) static_cast<float>(x)
#endif
/* fp8 on HIP: hip_fp8.h's conversions exist in device code only for the variant the target has (fnuz on gfx942,
 * OCP on gfx950), and one object holds both targets: the fill converts in software (dtype.h's fp8e4m3_bits,
 * fp8e5m2_bits), either variant. */
#define HAVE_FP8_SOFT 1
#else
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
typedef __nv_fp8_e4m3 fp8_t;
typedef __nv_fp8_e5m2 fp8e5_t;
typedef __nv_bfloat16 bf16_t;
#define BF16_FROM(x) __float2bfloat16_rn(x)
#define BF16_TO(x) __bfloat162float(x)
#define HAVE_FP8 1
#endif

template <typename T> __device__ inline T from_float(float x);
template <> __device__ inline float from_float<float>(float x) { return x; }
template <> __device__ inline __half from_float<__half>(float x) { return __float2half_rn(x); }
template <> __device__ inline bf16_t from_float<bf16_t>(float x) { return BF16_FROM(x); }
#ifdef HAVE_FP8
template <> __device__ inline fp8_t from_float<fp8_t>(float x) { return fp8_t(x); }
template <> __device__ inline fp8e5_t from_float<fp8e5_t>(float x) { return fp8e5_t(x); }
#endif
#ifdef HAVE_FP8_SOFT
/* dtype.h's fp8e4m3_bits / fp8e5m2_bits: the device's variant, fnuz or OCP; fp8e*_to_float are the inverses. */
__global__ void fill_fp8_kernel(unsigned char *p, size_t n, uint64_t seed, uint32_t tensor, int init, int fnuz,
				int e5m2)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		float x = rng_value(seed, tensor, i, init);

		p[i] = e5m2 ? fp8e5m2_bits(x, fnuz) : fp8e4m3_bits(x, fnuz);
	}
}
#endif

template <typename T>
__global__ void fill_kernel(T *p, size_t n, uint64_t seed, uint32_t tensor, int init)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		p[i] = from_float<T>(rng_value(seed, tensor, i, init));
}

extern "C" int gpu_fill(void *p, int dtype, size_t n, uint64_t seed, uint32_t tensor, int init, gpuStream_t s)
{
	const int threads = 256, blocks = 4096;

	switch (dtype) {
	case DT_FP32: fill_kernel<float><<<blocks, threads, 0, s>>>((float *)p, n, seed, tensor, init); break;
	case DT_FP16: fill_kernel<__half><<<blocks, threads, 0, s>>>((__half *)p, n, seed, tensor, init); break;
	case DT_BF16: fill_kernel<bf16_t><<<blocks, threads, 0, s>>>((bf16_t *)p, n, seed, tensor, init); break;
#ifdef HAVE_FP8
	case DT_FP8E4M3: fill_kernel<fp8_t><<<blocks, threads, 0, s>>>((fp8_t *)p, n, seed, tensor, init); break;
	case DT_FP8E5M2: fill_kernel<fp8e5_t><<<blocks, threads, 0, s>>>((fp8e5_t *)p, n, seed, tensor, init); break;
#elif defined(HAVE_FP8_SOFT)
	case DT_FP8E4M3: /* the device's e4m3 / e5m2: fnuz on gfx942, OCP elsewhere */
	case DT_FP8E5M2:
		fill_fp8_kernel<<<blocks, threads, 0, s>>>((unsigned char *)p, n, seed, tensor, init, gpu_fp8_fnuz(),
							   dtype == DT_FP8E5M2);
		break;
#endif
	default: return -1;
	}
	return gpuGetLastError() == gpuSuccess ? 0 : -1;
}

// Memory bandwidth: 16-byte vector accesses, grid-stride. read keeps its sum alive through a store that
// never happens for real data (the sum of N(0,1)-free zeros is 0); write stores a constant.
__global__ void read_kernel(uint4 *__restrict__ sink, const uint4 *__restrict__ src, size_t n)
{
	unsigned int acc = 0;

	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		uint4 v = src[i];
		acc ^= v.x ^ v.y ^ v.z ^ v.w;
	}
	if (acc == 0x9e3779b9u)
		sink[0].x = acc;
}

__global__ void write_kernel(uint4 *__restrict__ dst, size_t n)
{
	const uint4 z = make_uint4(0, 0, 0, 0);

	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		dst[i] = z;
}

extern "C" int gpu_membw(int op, void *dst, const void *src, size_t bytes, gpuStream_t s)
{
	static int blocks;
	const int threads = 512;
	size_t n = bytes / sizeof(uint4);

	if (!blocks) {
		int dev = 0, sms = 0;
#if defined(BENCH_HIP)
		if (hipGetDevice(&dev) != hipSuccess ||
		    hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, dev) != hipSuccess)
			sms = 0;
#else
		cudaGetDevice(&dev);
		cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
#endif
		blocks = (sms > 0 ? sms : 132) * 8;
	}
	switch (op) {
	case 0: /* Tensor.copy_ of contiguous same-dtype tensors is cudaMemcpyAsync device-to-device: measure that */
#if defined(BENCH_HIP)
		return hipMemcpyAsync(dst, src, bytes, hipMemcpyDeviceToDevice, s) == hipSuccess ? 0 : -1;
#else
		return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s) == cudaSuccess ? 0 : -1;
#endif
	case 1: read_kernel<<<blocks, threads, 0, s>>>((uint4 *)dst, (const uint4 *)src, n); break;
	case 2: write_kernel<<<blocks, threads, 0, s>>>((uint4 *)dst, n); break;
	default: return -1;
	}
	return gpuGetLastError() == gpuSuccess ? 0 : -1;
}

// Collectives: inputs are exactly known small integers (coll_value), outputs are compared exactly.
template <typename T> __device__ inline float to_float(T x);
template <> __device__ inline float to_float<float>(float x) { return x; }
template <> __device__ inline float to_float<__half>(__half x) { return __half2float(x); }
template <> __device__ inline float to_float<bf16_t>(bf16_t x) { return BF16_TO(x); }

template <typename T>
__global__ void coll_fill_kernel(T *p, size_t count, int rank, size_t base)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
		p[i] = from_float<T>(coll_value(rank, base + i));
}

template <typename T>
__global__ void coll_check_kernel(const T *p, size_t count, int op, int rank, int n, size_t chunk, int root,
				  unsigned long long *wrong)
{
	unsigned long long w = 0;

	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
		w += to_float<T>(p[i]) != coll_expected(op, rank, n, chunk, root, i);
	if (w)
		atomicAdd(wrong, w);
}

extern "C" int gpu_coll_fill(void *p, int dtype, size_t count, int rank, size_t base, gpuStream_t s)
{
	const int threads = 256, blocks = 2048;

	switch (dtype) {
	case DT_FP32: coll_fill_kernel<float><<<blocks, threads, 0, s>>>((float *)p, count, rank, base); break;
	case DT_FP16: coll_fill_kernel<__half><<<blocks, threads, 0, s>>>((__half *)p, count, rank, base); break;
	case DT_BF16: coll_fill_kernel<bf16_t><<<blocks, threads, 0, s>>>((bf16_t *)p, count, rank, base); break;
	default: return -1;
	}
	return gpuGetLastError() == gpuSuccess ? 0 : -1;
}

extern "C" long long gpu_coll_check(const void *p, int dtype, size_t count, int op, int rank, int n, size_t chunk,
				    int root, gpuStream_t s)
{
	const int threads = 256, blocks = 2048;
	unsigned long long *d = NULL, h = 0;

	long long rc = -1;

	if (gpuMalloc((void **)&d, sizeof(*d)) != gpuSuccess)
		return -1;
	if (gpuMemsetAsync(d, 0, sizeof(*d), s) != gpuSuccess)
		goto out;
	switch (dtype) {
	case DT_FP32: coll_check_kernel<float><<<blocks, threads, 0, s>>>((const float *)p, count, op, rank, n, chunk, root, d); break;
	case DT_FP16: coll_check_kernel<__half><<<blocks, threads, 0, s>>>((const __half *)p, count, op, rank, n, chunk, root, d); break;
	case DT_BF16: coll_check_kernel<bf16_t><<<blocks, threads, 0, s>>>((const bf16_t *)p, count, op, rank, n, chunk, root, d); break;
	default: goto out;
	}
	if (gpuStreamSynchronize(s) == gpuSuccess && gpuMemcpy(&h, d, sizeof(h), gpuMemcpyDeviceToHost) == gpuSuccess)
		rc = (long long)h;
out:
	(void)gpuFree(d);
	return rc;
}
