/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_build.c — bench build MANIFEST: the stack's image from its locked recipe, and the image's id. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "cmd.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/opt.h"
#include "core/strbuf.h"
#include "image/builder.h"
#include "image/hoststack.h"
#include "manifest/manifest.h"

static const struct opt_cmd cmd = { "build", "[--lock FILE] [--engine podman|docker|apptainer] [--force] [--json] MANIFEST",
				    "Engine host: build the stack's git components into their prefixes under $BENCH_HOME/stacks "
				    "and its pip closures into a virtual environment, each once per pin (docs/stacks.md, \"Host "
				    "stacks\"); prints each component's prefix. Container engines: build the stack's image: the recipe of the manifest and its lock, a build context with a "
				    "snapshot of every locked git commit (fetched once into $BENCH_HOME/cache) and the runner "
				    "sources, built by the engine (runtime.engine, or --engine) and tagged by the context's "
				    "digest (recipe and runner sources). An image of the same context is reused unless --force. "
				    "Prints the image and its id (sha256). A failed build exits 5 with the build log's tail." };

/* Engine host: the stack's git components built into their prefixes and its pip closures into an environment, on
 * this machine (docs/stacks.md, "Host stacks"); each one already built is reported up to date. */
static int build_host(const struct manifest *m, const char *mpath, const char *lockp, int force, int json)
{
	struct host_stack hs = HOST_STACK_INIT;
	char *lp = lockp ? xstrdup(lockp) : cli_lock_path(mpath);
	json_t *lock = NULL;
	struct timespec t0, t1;
	int err, status = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!m->stack.ncomponents) {
		fprintf(stderr, "bench: build: '%s' runs on this machine's own stack (engine host, no components): nothing to "
			"build\n", mpath);
		goto cleanup;
	}
	if (fs_load_json(&lock, lp, 64u << 20, 0) < 0) {
		fprintf(stderr, "bench: error: cannot read the lock '%s': %s (run 'bench lock %s')\n", lp, bench_error_last(),
			mpath);
		status = 3;
		goto cleanup;
	}
	if ((err = host_stack_build(m, lock, force, json ? NULL : stderr, NULL)) < 0 ||
	    (err = host_stack_load(&hs, m, lock)) < 0) {
		status = cli_fail(err);
		goto cleanup;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (json) {
		json_t *o = host_stack_json(&hs);

		json_object_set_new(o, "engine", json_string("host"));
		json_object_set_new(o, "seconds", json_real((double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9));
		cli_print_json(o);
	} else {
		for (size_t i = 0; i < hs.n; i++)
			printf("%s\t%s\t%s\n", hs.c[i].name, source_names[hs.c[i].source], hs.c[i].prefix);
		fprintf(stderr, "bench: build: done in %.3f s\n",
			(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	}
cleanup:
	host_stack_release(&hs);
	json_decref(lock);
	free(lp);
	return status;
}

int cmd_build(int argc, char **argv)
{
	struct manifest m = MANIFEST_INIT;
	struct built_image b = BUILT_IMAGE_INIT;
	const struct builder_ops *builder;
	const char *lockp = NULL, *engine = NULL;
	char *mbuf = NULL, *lbuf = NULL;
	size_t mlen, llen;
	int n, err, status = 0, force = 0, json = 0;
	const struct opt opts[] = {
		OPT_STRING('l', "lock", &lockp, "FILE", "the lock (default: MANIFEST with .lock.json)"),
		OPT_STRING('e', "engine", &engine, "NAME", "podman, docker or apptainer (default: the manifest's runtime.engine)"),
		OPT_BOOL('f', "force", &force, "build even when an image of this build context exists"),
		OPT_BOOL(0, "json", &json, "print the result as JSON"),
		OPT_END(),
	};

	n = opt_parse(argc - 1, argv + 1, opts, &cmd);
	if (n == OPT_HELP || n < 0)
		return n < 0 ? 2 : 0;
	if (n != 1)
		return cli_usage_error(cmd.name, cmd.synopsis, n ? "give exactly one manifest" : "no manifest given");
	if ((status = cli_load_manifest(&m, argv[1])) != 0)
		goto cleanup;
	if (!engine && m.runtime.engine == ENGINE_HOST) {
		status = build_host(&m, argv[1], lockp, force, json);
		goto cleanup;
	}
	builder = builder_find(engine ? engine : engine_names[m.runtime.engine]);
	if (!builder) {
		status = cli_usage_error(cmd.name, cmd.synopsis, engine ? "--engine is podman, docker or apptainer"
								: "the manifest's runtime.engine is host, which builds no image: "
								  "give --engine");
		goto cleanup;
	}
	if ((status = cli_read_manifest_lock(&mbuf, &mlen, &lbuf, &llen, argv[1], lockp,
					     "an image is built from a locked stack")) != 0)
		goto cleanup;
	if ((err = image_build(&b, builder, NULL, &m, mbuf, mlen, lbuf, llen, force, json ? NULL : stderr, NULL)) < 0) {
		status = cli_fail(err);
		goto cleanup;
	}
	if (json) {
		json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:b}", "engine", builder->name, "image", b.image, "digest",
				      b.digest, "recipe", b.recipe, "context", b.context, "context_sha256", b.context_sha,
				      "reused", b.reused);

		cli_print_json(o); /* takes the reference */
	} else {
		printf("%s\n%s\n", b.image, b.digest);
	}
cleanup:
	built_image_release(&b);
	free(mbuf);
	free(lbuf);
	manifest_release(&m);
	return status;
}
