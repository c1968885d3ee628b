/* cmd_build.c — bench build MANIFEST: the stack's image from its locked recipe, and the image's id. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/opt.h"
#include "core/strbuf.h"
#include "image/builder.h"
#include "manifest/manifest.h"

static const struct opt_cmd cmd = { "build", "[--lock FILE] [--engine podman|docker|apptainer] [--force] [--json] MANIFEST",
				    "Build the stack's image: the recipe of the manifest and its lock, a build context with a "
				    "snapshot of every locked git commit (fetched once into $BENCH_HOME/cache) and the runner "
				    "sources, built by the engine (runtime.engine, or --engine) and tagged by the context's "
				    "digest (recipe and runner sources). An image of the same context is reused unless --force. "
				    "Prints the image and its id (sha256). A failed build exits 5 with the build log's tail." };

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
