/* SPDX-License-Identifier: Apache-2.0 */
/*
 * secrets.h — the manifest values that read like secrets (bench validate's warnings). manifest.yaml is packed
 * verbatim into every bundle (its sha256 is the run's identity), and the lock with it, so a credential written
 * there would be signed and shared: each stack.env, variant env or suite env_matrix variable whose name is a
 * secret's or whose value (one of an env_matrix's values, which also go into every case key) a secret rule matches
 * (core/scrub.h), and each component's pip index or git URL holding credentials, is named with where to give it
 * instead. Values and URLs are never printed.
 *
 * Ownership: secrets_warn_manifest() only reads the manifest and writes its warnings to the stream it is given.
 */
#ifndef BENCH_SECRETS_H
#define BENCH_SECRETS_H

#include <stdio.h>

#include "manifest/manifest.h"

/* Prints one "PATH: warning: ..." line to fp per value of m that looks like a secret; path as it is to be shown
 * (escaped by the caller). */
void secrets_warn_manifest(FILE *fp, const char *path, const struct manifest *m);

#endif
