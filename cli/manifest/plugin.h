/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plugin.h — plug-in implementations (docs/plugins.md): a suite's list entry {plugin: NAME, python|file|native: ...}
 * in place of a built-in's name. The parsed entry is a JSON object that travels in each case's params as "plugin".
 *
 * Ownership: plugin_parse() returns a new JSON reference in *out and a malloc'd NAME in *name; the caller owns both.
 * plugin_path() returns a malloc'd path. Nothing else is allocated. The pins of a manifest's plug-in files, which need
 * the whole manifest, are plugin_pins.h's.
 */
#ifndef BENCH_PLUGIN_H
#define BENCH_PLUGIN_H

#include <stdio.h>

#include <jansson.h>

#include "core/diag.h"
#include "ynode.h"

#define PLUGIN_NAME_MAX 40
#define PLUGIN_TIMEOUT_DEFAULT_S 600

/* The suite list a plug-in entry stands in (param.c fills it from the list's struct param_def). */
struct plugin_slot {
	const char *list;            /* the list's name, for messages ("backends") */
	const char *const *builtins; /* its built-in names, NULL-terminated: no plug-in may take one */
	int native_ok;               /* 'native' allowed (gemm backends) */
	int passes_ok;               /* 'passes' allowed (attention, ssm) */
};

/*
 * Parses the mapping node of list slot into *out: {"name", "kind": "python"|"file"|"native", "python"
 * (module:function), "module", "function", "path" (file and native, relative to the manifest), "passes" (when
 * given), "timeout_s"}.
 * Problems become diagnostics positioned in file (the manifest, whose directory relative paths are read from; a
 * path that exists only under <dir>/inputs/, as in a run directory, is accepted too). Returns 0 or -1.
 */
int plugin_parse(json_t **out, char **name, const struct plugin_slot *slot, const struct ynode *node,
		 struct diag_list *d, const char *file);
/* Where the file of a file or native plug-in is read, given the manifest's path: <dir>/<path>, else
 * <dir>/inputs/<path> where only that exists (a run directory, an unpacked bundle). */
char *plugin_path(const char *manifest_path, const char *rel);
/* 1 when the case params carry a plug-in; its kind ("python", "file", "native") in *kind when kind is not NULL. */
int plugin_of_params(const json_t *params, const char **kind);
/* 1 when plug-in entry p (a case's params "plugin") supports pass (attention, ssm: "passes"; absent: all). */
int plugin_has_pass(const json_t *p, const char *pass);

#endif
