/* SPDX-License-Identifier: Apache-2.0 */
/*
 * param.h — suite parameter schemas and parsed values. One schema table per suite drives validation,
 * defaults, `bench suites` and the plan, so a parameter is declared once.
 *
 * Ownership: schema tables are static constants. A struct param_value owns its strings and arrays;
 * param_value_release() frees them. A parsed value keeps a pointer to its (static) definition.
 */
#ifndef BENCH_PARAM_H
#define BENCH_PARAM_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "core/diag.h"
#include "ynode.h"

enum param_type {
	PARAM_BOOL,
	PARAM_INT,
	PARAM_NUMBER,
	PARAM_SIZE,
	PARAM_DURATION,
	PARAM_ENUM,
	PARAM_STRING,
	PARAM_ENUM_LIST,
	PARAM_INT_LIST,
	PARAM_BOOL_LIST,
	PARAM_SIZE_LIST,
	PARAM_SHAPES,
};

#define PARAM_AUTO 0x1       /* the word "auto" is accepted and stored as 0 */
#define PARAM_EMPTY_OK 0x2   /* a list may be empty */
#define PARAM_SCALAR_OK 0x4  /* a list may be written as one value: "ddp" reads as [ddp] */
#define PARAM_PLUGIN_OK 0x8  /* enum list: an entry may be a plug-in mapping {plugin: NAME, ...} (plugin.h) */
#define PARAM_PLUGIN_NATIVE 0x10 /* ... and may be native: (gemm) */
#define PARAM_PLUGIN_PASSES 0x20 /* ... and may say passes: (attention, ssm) */

struct param_def {
	const char *name;
	enum param_type type;
	const char *def;      /* default, written as in a manifest */
	const char *def_cpu;  /* default when target.vendor is cpu; NULL: def */
	const char *def_rocm; /* default when target.vendor is rocm; NULL: def */
	const char *const *choices; /* enums: NULL-terminated */
	long long min, max;   /* ints and sizes (bytes), inclusive; max 0: no upper bound */
	unsigned flags;
	const char *help;
};

struct gemm_shape {
	long long m, n, k;
};

struct shape_preset {
	const char *name;
	const struct gemm_shape *shapes;
	size_t n;
};

struct param_value {
	const struct param_def *def;
	int line, col;   /* where the manifest set it; 0 when it is the default */
	int is_auto;
	long long i;     /* bool, int, size (bytes), duration (ns) */
	double num;
	char *str;       /* enum, string; shapes: the preset name, or NULL */
	size_t n;        /* lists */
	long long *iv;   /* int, bool and size lists */
	char **sv;       /* enum lists (a plug-in entry: its NAME) */
	json_t **plugins; /* enum lists with PARAM_PLUGIN_OK: the plug-in entry of sv[i] (plugin.h), or NULL */
	struct gemm_shape *shapes;
};

extern const struct shape_preset shape_presets[];

const char *param_type_name(enum param_type t);
/* The default text for a vendor ("cuda", "rocm", "cpu"). */
const char *param_default_text(const struct param_def *def, const char *vendor);

/*
 * Parses node into out according to def. Problems become diagnostics in diags (positioned in file);
 * returns 0 or BENCH_E_MANIFEST. where names the enclosing thing for messages ("suite 'gemm'").
 */
int param_parse(struct param_value *out, const struct param_def *def, const struct ynode *node,
		struct diag_list *diags, const char *file);
/* Fills out with def's default for vendor. Returns 0, or BENCH_E_MANIFEST if the built-in default is bad. */
int param_default(struct param_value *out, const struct param_def *def, const char *vendor);
void param_value_release(struct param_value *v);
/* The value as JSON (sizes in bytes, durations in milliseconds as a number, shapes as [[m,n,k],...]). */
json_t *param_value_json(const struct param_value *v);
/* The value written back in manifest syntax, for `bench suites` and plan headers (caller frees). */
char *param_value_text(const struct param_value *v);
int param_enum_index(const struct param_def *def, const char *s);

#endif
