/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plugin_pins.h — the pins of a manifest's file and native plug-ins (docs/plugins.md): each file's sha256, which
 * bench lock records under the lock's "plugins" and bench run --locked checks. A module above manifest.h and
 * plugin.h, so that the plug-in entry parser (plugin.h, used by param.c) stays below the manifest.
 *
 * Ownership: plugin_pins() returns a new JSON object in *out that the caller owns; plugin_pins_moved() allocates
 * nothing.
 */
#ifndef BENCH_PLUGIN_PINS_H
#define BENCH_PLUGIN_PINS_H

#include <stdio.h>

#include <jansson.h>

struct manifest;

/* The pins of m's file and native plug-ins: {"NAME": {"suite", "kind", "path", "sha256"}} (a new object, empty when
 * m has none), each file read as plugin_path(manifest_path, path) says. 0, or BENCH_E_IO naming a file that cannot be
 * read. */
int plugin_pins(json_t **out, const struct manifest *m, const char *manifest_path);
/* How many of the pins in now differ from those of a lock (its "plugins"; NULL: none), each printed to report as
 * "bench: moved: plugin 'NAME': PATH changed (sha256 A -> B)" (NULL: not printed). */
int plugin_pins_moved(const json_t *locked, const json_t *now, FILE *report);

#endif
