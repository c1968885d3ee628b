/* SPDX-License-Identifier: Apache-2.0 */
/*
 * show.h — what `bench show` prints about one run: its documents (summary, status, environment, lock, plan,
 * image), its manifest's pricing and its result records, read from the members of a bundle or a run directory
 * (bundle.h reads and verifies them), as text for a person or as one JSON object.
 *
 * Ownership: show_doc_load() fills a caller-provided struct show_doc with new JSON values and a copy of the run's
 * name; show_doc_release() frees them, also after a partial load. keyid and key_origin are borrowed (the
 * caller's bundle_verify_result) and must outlive the printing. show_print_text() escapes the document's strings
 * in place first (a terminal is shown text, never the control sequences a bundle may carry); show_json() returns
 * a new object.
 */
#ifndef BENCH_SHOW_H
#define BENCH_SHOW_H

#include <stdio.h>

#include <jansson.h>

#include "core/strvec.h"

/* Where the documents come from: a bundle that verified, one shown with --no-verify, or a run directory. */
enum show_origin { SHOW_VERIFIED, SHOW_UNVERIFIED, SHOW_RUN_DIR };

struct show_doc {
	char *run;
	enum show_origin origin;
	const char *keyid, *key_origin; /* SHOW_VERIFIED only; borrowed */
	json_t *summary, *status, *env, *lock, *plan, *image;
	json_t *pricing; /* the manifest's pricing (cost.h), or NULL */
	json_t *records; /* every result record, in the order of the suite registry */
	json_t *costs;   /* [{suite, case, ...figures}] of the records that have any (cost_of_record()) */
};

#define SHOW_DOC_INIT { 0 }

/* Pushes the names of the members show reads: its documents, manifest.yaml and each suite's results file. */
void show_member_names(struct strvec *out);
/* Parses members (bundle_read_members()' object: name -> text) into out; a member missing or not JSON is NULL.
 * run is copied. */
void show_doc_load(struct show_doc *out, json_t *members, const char *run);
void show_doc_release(struct show_doc *d);
/* {run, verified, signed, keyid, plan, status, summary, environment, lock, image, pricing, cost}: a new object. */
json_t *show_json(const struct show_doc *d);
/* The text of bench show: provenance, manifest and state, stack, image, loaded libraries, host, plug-ins, each
 * case's headline, the collectives tables, price, energy and cost, env cells, the cases that did not measure
 * and the findings. */
void show_print_text(FILE *fp, struct show_doc *d);

#endif
