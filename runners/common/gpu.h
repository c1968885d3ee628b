/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpu.h — the thin CUDA/HIP portability layer: one source for both, selected by BENCH_CUDA or BENCH_HIP.
 * Only names are mapped; behaviour is the vendor's. Enum *values* differ between CUDA and HIP libraries, so
 * code uses these names only.
 *
 * Ownership: macros and the small helpers in gpu_common.c; device memory belongs to whoever allocated it.
 */
#ifndef BENCH_GPU_H
#define BENCH_GPU_H

#if defined(BENCH_HIP)
#include <hip/hip_runtime_api.h>
#define gpuError_t hipError_t
#define gpuSuccess hipSuccess
#define gpuErrorMemoryAllocation hipErrorOutOfMemory
#define gpuGetErrorString hipGetErrorString
#define gpuGetLastError hipGetLastError
#define gpuMalloc hipMalloc
#define gpuFree hipFree
#define gpuMemset hipMemset
#define gpuMemsetAsync hipMemsetAsync
#define gpuMemcpy hipMemcpy
#define gpuMemcpy2D hipMemcpy2D
#define gpuMemcpyDeviceToHost hipMemcpyDeviceToHost
#define gpuMemcpyHostToDevice hipMemcpyHostToDevice
#define gpuMemGetInfo hipMemGetInfo
#define gpuStream_t hipStream_t
#define gpuStreamCreate hipStreamCreate
#define gpuStreamDestroy hipStreamDestroy
#define gpuStreamSynchronize hipStreamSynchronize
#define gpuEvent_t hipEvent_t
#define gpuEventCreate hipEventCreate
#define gpuEventDestroy hipEventDestroy
#define gpuEventRecord hipEventRecord
#define gpuEventSynchronize hipEventSynchronize
#define gpuEventElapsedTime hipEventElapsedTime
#define gpuGetDeviceCount hipGetDeviceCount
#define gpuSetDevice hipSetDevice
#define gpuGetDeviceProperties hipGetDeviceProperties
#define gpuDeviceProp hipDeviceProp_t
#define gpuDeviceGetAttribute hipDeviceGetAttribute
#define gpuDevAttrClockRate hipDeviceAttributeClockRate
#define gpuDevAttrMemoryClockRate hipDeviceAttributeMemoryClockRate
#define gpuDriverGetVersion hipDriverGetVersion
#define gpuRuntimeGetVersion hipRuntimeGetVersion
#define gpuDeviceGetPCIBusId hipDeviceGetPCIBusId
#define GPU_VENDOR "rocm"
#define GPU_NO_DEVICE "no AMD GPU visible"
#elif defined(BENCH_CUDA)
#include <cuda_runtime_api.h>
#define gpuError_t cudaError_t
#define gpuSuccess cudaSuccess
#define gpuErrorMemoryAllocation cudaErrorMemoryAllocation
#define gpuGetErrorString cudaGetErrorString
#define gpuGetLastError cudaGetLastError
#define gpuMalloc cudaMalloc
#define gpuFree cudaFree
#define gpuMemset cudaMemset
#define gpuMemsetAsync cudaMemsetAsync
#define gpuMemcpy cudaMemcpy
#define gpuMemcpy2D cudaMemcpy2D
#define gpuMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define gpuMemcpyHostToDevice cudaMemcpyHostToDevice
#define gpuMemGetInfo cudaMemGetInfo
#define gpuStream_t cudaStream_t
#define gpuStreamCreate cudaStreamCreate
#define gpuStreamDestroy cudaStreamDestroy
#define gpuStreamSynchronize cudaStreamSynchronize
#define gpuEvent_t cudaEvent_t
#define gpuEventCreate cudaEventCreate
#define gpuEventDestroy cudaEventDestroy
#define gpuEventRecord cudaEventRecord
#define gpuEventSynchronize cudaEventSynchronize
#define gpuEventElapsedTime cudaEventElapsedTime
#define gpuGetDeviceCount cudaGetDeviceCount
#define gpuSetDevice cudaSetDevice
#define gpuGetDeviceProperties cudaGetDeviceProperties
#define gpuDeviceProp struct cudaDeviceProp
#define gpuDeviceGetAttribute cudaDeviceGetAttribute
#define gpuDevAttrClockRate cudaDevAttrClockRate
#define gpuDevAttrMemoryClockRate cudaDevAttrMemoryClockRate
#define gpuDriverGetVersion cudaDriverGetVersion
#define gpuRuntimeGetVersion cudaRuntimeGetVersion
#define gpuDeviceGetPCIBusId cudaDeviceGetPCIBusId
#define GPU_VENDOR "cuda"
#define GPU_NO_DEVICE "no NVIDIA GPU visible"
#endif

#if defined(BENCH_CUDA) || defined(BENCH_HIP)
#define BENCH_GPU 1
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "dobench.h"

/* Events on one stream as a dobench clock. */
struct gpu_clock {
	gpuStream_t stream;
	gpuEvent_t *start, *end;
	size_t n;
};
void gpu_clock_ops(struct dobench_clock *out, struct gpu_clock *c);
void gpu_clock_release(struct gpu_clock *c);
/* Device 0's name, architecture, SMs, caches, clocks, memory and driver/runtime versions (new reference),
 * or NULL with why[] set when there is no usable device. */
json_t *gpu_device_info(char *why, size_t whylen);
size_t gpu_l2_bytes(void);
/* Device 0's architecture: "sm_90" (CUDA), the gfx target without its feature flags, "gfx942" (HIP); "" if none. */
void gpu_arch(char *buf, size_t len);
/* The default cache flush for device 0, in bytes: 2 x (L2 + the last-level cache the runtime does not report,
 * AMD's MALL / Infinity Cache from gpu_common.c's table by gfx target), at least 256 MiB. */
size_t gpu_flush_bytes(void);
/* Device 0's PCI bus id ("0000:3B:00.0"), for matching it in NVML; "" when unknown. */
void gpu_pci_bus_id(char *buf, size_t len);
/* The timing mode a case asks for ("steady" | "burst"; NULL: steady, the GPU default), its telemetry probe,
 * and the record's extra.timing and extra.telemetry after the run. */
struct telemetry;
void gpu_timing_opts(struct dobench_opts *o, const char *mode, struct telemetry *t, struct dobench_probe *probe);
void gpu_timing_record(json_t *rec, const struct dobench_result *r, const struct telemetry *t);

/* Kernels (gpu_kernels.cu): fill n elements of dtype with rng_value(seed, tensor, i, init). */
#ifdef __cplusplus
extern "C" {
#endif
/* 1 when device 0's e4m3 is the fnuz variant (bias 8, 0x80 NaN: gfx942, MI300X/MI325X), 0 for OCP e4m3 (NVIDIA,
 * gfx950). DT_FP8E4M3 means the device's e4m3 throughout: inputs, hipBLASLt type, host reference. */
int gpu_fp8_fnuz(void);
int gpu_fill(void *p, int dtype, size_t n, uint64_t seed, uint32_t tensor, int init, gpuStream_t s);
int gpu_membw(int op, void *dst, const void *src, size_t bytes, gpuStream_t s);
#ifdef __cplusplus
}
#endif
#endif

#endif
