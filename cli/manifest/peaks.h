/* SPDX-License-Identifier: Apache-2.0 */
/*
 * peaks.h — datasheet peaks per GPU from images/bases/peaks.yaml (data, not code).
 *
 * Ownership: peaks_load() fills a caller-provided struct peaks that owns its entries; peaks_release() frees
 * them. Pointers from peaks_find() stay valid until then.
 */
#ifndef BENCH_PEAKS_H
#define BENCH_PEAKS_H

#define MANIFEST_PEAKS_MAX (1024 * 1024)

#include <stddef.h>

#include "core/diag.h"

struct peak {
	char *key;     /* "h200" */
	char *name;    /* "NVIDIA H200 SXM" */
	char *vendor;  /* cuda | rocm | cpu */
	double bf16_tflops, fp8_tflops, tf32_tflops, fp32_tflops, hbm_tbps; /* 0: not in the file */
};

struct peaks {
	struct peak *items;
	size_t n;
};

#define PEAKS_INIT { NULL, 0 }

/* Loads path (NULL: <data dir>/images/bases/peaks.yaml). Problems go to diags; returns 0 or a negative code. */
int peaks_load(struct peaks *out, struct diag_list *diags, const char *path);
const struct peak *peaks_find(const struct peaks *p, const char *key);
void peaks_release(struct peaks *p);
/* The tensor-core peak of a GEMM dtype ("bf16", "fp8e4m3", ...): every fp8 dtype (fp8e4m3, and fp8e5m2's e5m2 x
 * e4m3) the fp8 peak, fp32 the plain fp32 peak (no TF32), the rest bf16's; 0 where the file has no figure. */
double peaks_tflops_for(const struct peak *p, const char *dtype);

#endif
