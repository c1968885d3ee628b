/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_report.c — bench report RUN_OR_BUNDLE... -o DIR: one self-contained index.html of the runs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "cmd.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/opt.h"
#include "core/strbuf.h"
#include "stats/compare.h"
#include "render/html.h"

static const struct opt_cmd cmd = { "report", "[options] -o DIR RUN_OR_BUNDLE...",
				    "Write DIR/index.html: a self-contained static page (no script, no external files) with, "
				    "per run, its signature status, stack, environment and the command to reproduce it; per "
				    "suite a table of every case (value, n, CV, % of peak, check) and a chart as inline SVG "
				    "(bars with their values, 5th-95th percentile whiskers and the datasheet peak; "
				    "collectives as bus bandwidth against log2 message size, with nccl-tests tables); energy and cost per case "
				    "from each run's pricing; with several runs, the "
				    "comparison against the first. Bundles are verified first." };

int cmd_report(int argc, char **argv)
{
	struct opt_strlist keys = OPT_STRLIST_INIT;
	struct compare_opts co = { 0.02, 0.01, 2000, 0, NULL };
	struct compare_side *sides = NULL;
	struct strbuf page = STRBUF_INIT;
	const char *out = NULL;
	int allow = 0, n, status = 0, err;
	const struct opt opts[] = {
		OPT_STRING('o', "output", &out, "DIR", "where index.html goes (created if missing)"),
		OPT_BOOL(0, "allow-unverified", &allow, "accept bundles that do not verify (marked on the page)"),
		OPT_LIST('k', "key", &keys, "PUB.pem", "verify bundles with this key (repeatable)"),
		OPT_END(),
	};
	char *path = NULL, *tmp = NULL;
	json_t *cmp = NULL;
	FILE *f = NULL;
	int fd;

	n = opt_parse(argc - 1, argv + 1, opts, &cmd);
	if (n == OPT_HELP || n < 0)
		return n < 0 ? 2 : 0;
	if (n < 1)
		return cli_usage_error(cmd.name, cmd.synopsis, "give at least one run or bundle");
	if (!out)
		return cli_usage_error(cmd.name, cmd.synopsis, "-o DIR is required");
	co.keys = keys.v;
	co.allow_unverified = allow;
	if ((err = compare_load_all(&sides, argv + 1, (size_t)n, &co)) < 0) {
		status = cli_fail(err);
		goto cleanup;
	}
	if (n > 1)
		cmp = compare_build(sides, (size_t)n, 0, &co);
	html_render_report(&page, sides, (size_t)n, cmp);
	if (mkdir(out, 0777) < 0 && errno != EEXIST) {
		status = cli_fail(bench_error_set(BENCH_E_IO, "cannot create '%s': %s", out, strerror(errno)));
		goto cleanup;
	}
	path = xstrfmt("%s/index.html", out);
	tmp = xstrfmt("%s/.index.html.tmp", out);
	if ((fd = fs_open_new(tmp, 0644)) >= 0 && !(f = fdopen(fd, "wb")))
		close(fd);
	if (!f || fwrite(page.buf, 1, page.len, f) != page.len || fclose(f) != 0 || rename(tmp, path) != 0) {
		status = cli_fail(bench_error_set(BENCH_E_IO, "cannot write '%s': %s", path, strerror(errno)));
		if (f)
			remove(tmp);
		goto cleanup;
	}
	printf("%s\n", path);
cleanup:
	json_decref(cmp);
	compare_sides_free(sides, (size_t)n);
	free(path);
	free(tmp);
	strbuf_release(&page);
	opt_strlist_release(&keys);
	return status;
}
