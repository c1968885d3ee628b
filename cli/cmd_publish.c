/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_publish.c — bench publish BUNDLE... --repo DIR: verified bundles into a results repository and its site. */
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "core/error.h"
#include "core/opt.h"
#include "core/strbuf.h"
#include "publish/publish.h"

static const struct opt_cmd cmd = { "publish", "[options] --repo DIR BUNDLE...",
				    "Verify each bundle (an unverified one is refused and nothing is touched; so is, with exit 6, "
				    "one whose run is incomplete: interrupted, still running or with cases never run, unless "
				    "--allow-incomplete), add it with its "
				    "envelope to the results repository DIR (a git repository, created on first use) with one "
				    "commit per run naming the run, channel and signing key id, and regenerate the static site "
				    "DIR/site/: an index of every run grouped by manifest name and channel, the latest headline "
				    "per case with its trend, each run's report. Publishing the same bundle twice is a no-op." };

int cmd_publish(int argc, char **argv)
{
	struct opt_strlist keys = OPT_STRLIST_INIT;
	const char *repo = NULL;
	int allow_incomplete = 0;
	const struct opt opts[] = {
		OPT_STRING('r', "repo", &repo, "DIR", "the results repository"),
		OPT_LIST('k', "key", &keys, "PUB.pem", "verify bundles with this key (repeatable)"),
		OPT_BOOL(0, "allow-incomplete", &allow_incomplete, "publish a run that was interrupted or never finished (marked as such)"),
		OPT_END(),
	};
	size_t added = 0;
	int n, status = 0, err;

	n = opt_parse(argc - 1, argv + 1, opts, &cmd);
	if (n == OPT_HELP || n < 0)
		return n < 0 ? 2 : 0;
	if (n < 1)
		return cli_usage_error(cmd.name, cmd.synopsis, "give at least one bundle");
	if (!repo)
		return cli_usage_error(cmd.name, cmd.synopsis, "--repo DIR is required");
	if ((err = publish_bundles(&added, repo, (const char *const *)(argv + 1), (size_t)n, keys.v, allow_incomplete)) < 0)
		status = cli_fail(err);
	else
		printf("published %zu new run(s) of %d into %s; site: %s/site/index.html\n", added, n, repo, repo);
	opt_strlist_release(&keys);
	return status;
}
