/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plugin.h — plug-in implementations (docs/plugins.md): a suite's list entry {plugin: NAME, python|file|native: ...}
 * in place of a built-in's name. The parsed entry is a JSON object that travels in each case's params as "plugin".
 *
 * Ownership: plugin_parse() returns a new JSON reference in *out and a malloc'd NAME in *name; the caller owns both.
 * plugin_path() returns a malloc'd path. Nothing else is allocated.
 */
#ifndef BENCH_PLUGIN_H
#define BENCH_PLUGIN_H

#include <stdio.h>

#include <jansson.h>

#include "core/diag.h"
#include "param.h"
#include "ynode.h"

#define PLUGIN_NAME_MAX 40
#define PLUGIN_TIMEOUT_DEFAULT_S 600

/*
 * Parses the mapping node of list def into *out: {"name", "kind": "python"|"file"|"native", "python" (module:function),
 * "module", "function", "path" (file and native, relative to the manifest), "passes" (when given), "timeout_s"}.
 * Problems become diagnostics positioned in file (the manifest, whose directory relative paths are read from; a
 * path that exists only under <dir>/inputs/, as in a run directory, is accepted too). Returns 0 or -1.
 */
int plugin_parse(json_t **out, char **name, const struct param_def *def, const struct ynode *node,
		 struct diag_list *d, const char *file);
/* Where the file of a file or native plug-in is read, given the manifest's path: <dir>/<path>, else
 * <dir>/inputs/<path> where only that exists (a run directory, an unpacked bundle). */
char *plugin_path(const char *manifest_path, const char *rel);
/* 1 when the case params carry a plug-in; its kind ("python", "file", "native") in *kind when kind is not NULL. */
int plugin_of_params(const json_t *params, const char **kind);
/* 1 when plug-in entry p (a case's params "plugin") supports pass (attention, ssm: "passes"; absent: all). */
int plugin_has_pass(const json_t *p, const char *pass);

struct manifest;

/* The pins of m's file and native plug-ins: {"NAME": {"suite", "kind", "path", "sha256"}} (a new object, empty when
 * m has none), each file read as plugin_path(manifest_path, path) says. 0, or BENCH_E_IO naming a file that cannot be
 * read. */
int plugin_pins(json_t **out, const struct manifest *m, const char *manifest_path);
/* How many of the pins in now differ from those of a lock (its "plugins"; NULL: none), each printed to report as
 * "bench: moved: plugin 'NAME': PATH changed (sha256 A -> B)" (NULL: not printed). */
int plugin_pins_moved(const json_t *locked, const json_t *now, FILE *report);

#endif
