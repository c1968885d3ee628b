/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_ls.c — bench ls [DIR]: the runs and bundles under a directory, one line each, oldest first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd.h"
#include "core/opt.h"
#include "core/escape.h"
#include "render/runlist.h"

static const struct opt_cmd cmd = { "ls", "[--json] [--verify] [--key PUB.pem]... [DIR]",
				    "List the run directories and bundles under DIR (default: runs), oldest first: the start "
				    "date, the name, run or bundle, the manifest's name and channel, the run's state (complete, "
				    "failed, interrupted, not-started, running; killed: says running but no bench holds it), the "
				    "ok/failed/skipped case counts from status.json and, for a bundle, whether it verifies "
				    "(verified, UNVERIFIED with the reason, or not signed: no envelope beside it). A bundle that "
				    "verified before and whose file and envelope have not been written, replaced or renamed since "
				    "(same inode, size, mtime and ctime) is listed from $BENCH_HOME/cache/ls as 'verified (cached)'; "
				    "--verify verifies every bundle afresh. An entry that cannot be read is listed with the reason. "
				    "A DIR that cannot be opened: exit 1." };

static const char *s_or(json_t *o, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : dflt;
}

int cmd_ls(int argc, char **argv)
{
	int json = 0, verify = 0, n, err, rc = 0;
	struct opt_strlist keys = OPT_STRLIST_INIT;
	const struct opt opts[] = {
		OPT_BOOL(0, "json", &json, "print JSON"),
		OPT_BOOL(0, "verify", &verify, "verify every bundle afresh, not from the cache"),
		OPT_LIST('k', "key", &keys, "PUB.pem", "verify bundles with this public key (repeatable); default: trusted keys"),
		OPT_END(),
	};
	json_t *list = NULL, *e;
	size_t i;

	n = opt_parse(argc - 1, argv + 1, opts, &cmd);
	if (n == OPT_HELP || n < 0) {
		opt_strlist_release(&keys);
		return n < 0 ? 2 : 0;
	}
	if (n > 1) {
		opt_strlist_release(&keys);
		return cli_usage_error(cmd.name, cmd.synopsis, "give at most one directory");
	}
	if ((err = runlist_collect(&list, n ? argv[1] : "runs", keys.v, verify)) < 0) {
		rc = cli_fail(err);
		goto cleanup;
	}
	if (json) {
		rc = cli_print_json(json_incref(list));
		goto cleanup;
	}
	/* names and texts from the disk and from bundles: shown without control characters */
	esc_json_tree(list);
	if (!json_array_size(list)) {
		printf("no runs or bundles in '%s'\n", n ? argv[1] : "runs");
		goto cleanup;
	}
	printf("%-20s %-6s %-48s %-16s %-8s %-11s %4s %6s %7s  %s\n", "started", "kind", "name", "manifest", "channel",
	       "state", "ok", "failed", "skipped", "verify");
	json_array_foreach(list, i, e) {
		json_t *c = json_object_get(e, "counts");
		char ok[16] = "-", failed[16] = "-", skipped[16] = "-";
		const char *why = json_string_value(json_object_get(e, "error"));
		/* a run whose bench was killed still says running: the lock no bench holds tells */
		const char *state = json_is_true(json_object_get(e, "stale")) ? "killed" : s_or(e, "state", "-");

		if (c) {
			snprintf(ok, sizeof(ok), "%lld", (long long)json_integer_value(json_object_get(c, "ok")));
			snprintf(failed, sizeof(failed), "%lld", (long long)json_integer_value(json_object_get(c, "failed")));
			snprintf(skipped, sizeof(skipped), "%lld", (long long)json_integer_value(json_object_get(c, "skipped")));
		}
		printf("%-20s %-6s %-48s %-16s %-8s %-11s %4s %6s %7s  %s%s%s%s%s\n", s_or(e, "started", "-"), s_or(e, "kind", "?"),
		       s_or(e, "name", "?"), s_or(e, "manifest", "-"), s_or(e, "channel", "-"), state, ok, failed, skipped,
		       s_or(e, "verify", "-"), json_is_true(json_object_get(e, "cached")) ? " (cached)" : "", why ? " (" : "",
		       why ? why : "", why ? ")" : "");
	}
cleanup:
	json_decref(list);
	opt_strlist_release(&keys);
	return rc;
}
