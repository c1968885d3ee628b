/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_bundle.c — libFuzzer target for reading a result bundle without a valid signature: the input is written to
 * a file <tmp>/fuzz.bench.tar.gz (no envelope beside it, so verification fails) and read the way
 * `bench report --allow-unverified` reads it (compare_load_all() of it twice, compare_build(), the HTML report) and
 * the way `bench show --no-verify` does (bundle_read_members()): the gzip stream, the tar archive, its checks and
 * the JSON and JSON-lines members. An input that is not gzip (no 1f 8b magic) is gzipped first (stored, level 0), so
 * that mutations of a plain tar reach the archive and member checks past the gzip CRC (corpus: both kinds).
 * Build: make fuzz. Run: build/fuzz/fuzz_bundle -max_total_time=600 tests/fuzz/corpus-bundle (the long run and the
 * corpus merge: CONTRIBUTING.md, tests/fuzz/). The fuzz build reads bundles in 16 KiB chunks (BENCH_BUNDLE_CHUNK,
 * Makefile) and sets a smaller ASan quarantine (below): speed only, the same code runs.
 *
 * Ownership: the temporary directory is created once per process and removed at exit.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "core/error.h"
#include "core/strbuf.h"
#include "bundle/bundle.h"
#include "stats/compare.h"
#include "render/html.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__asan_default_options(void);

/* ASan's defaults for this target (ASAN_OPTIONS still overrides them): an 8 MB quarantine instead of 256 MB. Every
 * execution frees ~1 MB (the reader's ring, zlib, libarchive); with the default quarantine that memory was always
 * fresh pages (page faults, then munmap with TLB flushes), which halved the executions per second. Use-after-free
 * is still caught for the last 8 MB freed, far more than one execution frees. */
const char *__asan_default_options(void)
{
	return "quarantine_size_mb=8";
}

static char fuzz_dir[4096];
static char fuzz_path[4200];

static void fuzz_cleanup(void)
{
	unlink(fuzz_path);
	rmdir(fuzz_dir);
}

static void fuzz_setup(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/bench-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(fuzz_dir))
		abort();
	snprintf(fuzz_path, sizeof(fuzz_path), "%s/fuzz.bench.tar.gz", fuzz_dir);
	/* no trusted keys, no own key: the home is the empty temporary directory */
	setenv("BENCH_HOME", fuzz_dir, 1);
	setenv("BENCH_DATA", BENCH_FUZZ_DATA, 0);
	atexit(fuzz_cleanup);
}

/* writes data to path, gzipped (level 0) unless it already is gzip */
static void fuzz_write(const char *path, const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	z_stream z;
	unsigned char *out;
	size_t cap;

	if (!f)
		abort();
	if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
		if (fwrite(data, 1, size, f) != size)
			abort();
	} else {
		memset(&z, 0, sizeof(z));
		if (deflateInit2(&z, 0, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
			abort();
		cap = deflateBound(&z, (uLong)size) + 64;
		out = malloc(cap);
		z.next_in = (Bytef *)data;
		z.avail_in = (uInt)size;
		z.next_out = out;
		z.avail_out = (uInt)cap;
		if (!out || deflate(&z, Z_FINISH) != Z_STREAM_END || fwrite(out, 1, cap - z.avail_out, f) != cap - z.avail_out)
			abort();
		deflateEnd(&z);
		free(out);
	}
	if (fclose(f) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "plan.json", "summary.json", "status.json", "manifest.yaml", NULL };
	struct compare_opts o = { .threshold = 0.02, .alpha = 0.01, .resamples = 20, .allow_unverified = 1 };
	struct compare_side *sides = NULL;
	char *paths[2] = { fuzz_path, fuzz_path };
	struct strbuf page = STRBUF_INIT;
	json_t *cmp = NULL, *m = NULL;
	char *run = NULL;

	if (!fuzz_dir[0])
		fuzz_setup();
	fuzz_write(fuzz_path, data, size);
	if (compare_load_all(&sides, paths, 2, &o) == 0) {
		json_t *facts = compare_stack_facts(&sides[0]);

		json_decref(facts);
		cmp = compare_build(sides, 2, 0, &o);
		html_render_report(&page, sides, 2, cmp);
	}
	bench_error_clear();
	if (bundle_read_members(&m, &run, fuzz_path, names, 1u << 20) == 0 && !m)
		abort();
	bench_error_clear();
	json_decref(m);
	free(run);
	json_decref(cmp);
	compare_sides_free(sides, 2);
	strbuf_release(&page);
	return 0;
}
