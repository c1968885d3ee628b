/* main.c — the command table, global options and the exit-code mapping. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd.h"
#include "core/diag.h"
#include "manifest/manifest.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/strbuf.h"
#include "core/suggest.h"

const struct command commands[] = {
	{ "run", cmd_run, "run a manifest's suites (validate, plan, execute, collect)" },
	{ "validate", cmd_validate, "check manifests and report every problem with file:line:col" },
	{ "plan", cmd_plan, "list the cases a manifest would run, with their stable keys" },
	{ "suites", cmd_suites, "list the suites and every parameter: type, default, meaning" },
	{ "lock", cmd_lock, "pin every moving reference of a manifest (git, pip, apt, base image)" },
	{ "recipe", cmd_recipe, "write the stack's container recipe (Containerfile or apptainer)" },
	{ "build", cmd_build, "build the stack's image from its locked recipe (podman, docker, apptainer)" },
	{ "pack", cmd_pack, "write a run directory's deterministic bundle and its signed envelope" },
	{ "keygen", cmd_keygen, "create the Ed25519 key pair that signs bundles" },
	{ "verify", cmd_verify, "check a bundle's signature, digests and members" },
	{ "show", cmd_show, "print a bundle's run, stack, environment and headline results" },
	{ "compare", cmd_compare, "compare runs or bundles case by case, with confidence intervals" },
	{ "report", cmd_report, "write a self-contained HTML report of runs or bundles" },
	{ "publish", cmd_publish, "add verified bundles to a results repository and regenerate its site" },
	{ "version", cmd_version, "print bench's version, commit and linked library versions" },
	{ "help", cmd_help, "show help for bench or for one command" },
	{ NULL, NULL, NULL },
};

int cli_fail(int err)
{
	fprintf(stderr, "bench: error: %s\n", bench_error_last());
	return bench_exit_code(err);
}

int cli_usage_error(const char *cmd, const char *synopsis, const char *msg)
{
	fprintf(stderr, "bench: error: %s\nusage: bench %s %s\n(see 'bench %s -h')\n", msg, cmd, synopsis, cmd);
	return 2;
}

int cli_load_manifest(struct manifest *m, const char *path)
{
	struct diag_list diags = DIAG_LIST_INIT;
	int err = manifest_parse_file(m, &diags, path);

	if (err < 0) {
		if (diags.n)
			diag_list_print(&diags, stderr);
		else
			fprintf(stderr, "bench: error: %s\n", bench_error_last());
	}
	diag_list_release(&diags);
	return bench_exit_code(err);
}

char *cli_lock_path(const char *manifest)
{
	size_t l = strlen(manifest);

	if (l > 5 && !strcmp(manifest + l - 5, ".yaml"))
		return xstrfmt("%.*s.lock.json", (int)(l - 5), manifest);
	if (l > 4 && !strcmp(manifest + l - 4, ".yml"))
		return xstrfmt("%.*s.lock.json", (int)(l - 4), manifest);
	return xstrfmt("%s.lock.json", manifest);
}

int cli_read_manifest_lock(char **mbuf, size_t *mlen, char **lbuf, size_t *llen, const char *manifest,
			   const char *lock, const char *needs)
{
	char *path = lock ? xstrdup(lock) : cli_lock_path(manifest);
	int err, status = 0;

	*mbuf = *lbuf = NULL;
	if ((err = fs_read_file(mbuf, mlen, manifest, MANIFEST_MAX_BYTES)) < 0)
		status = cli_fail(err);
	else if (fs_read_file(lbuf, llen, path, 16u << 20) < 0) {
		fprintf(stderr, "bench: error: no readable lock at '%s': %s (run 'bench lock %s')\n", path, needs, manifest);
		status = 3;
	}
	free(path);
	return status;
}

int cli_print_json(void *json)
{
	int rc = json_dumpf(json, stdout, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));

	json_decref(json);
	fputc('\n', stdout);
	return rc == 0 ? 0 : 1;
}

static void print_usage(FILE *fp)
{
	fprintf(fp, "usage: bench [--version] [-h | --help] <command> [<args>]\n\ncommands:\n");
	for (const struct command *c = commands; c->name; c++)
		fprintf(fp, "  %-10s %s\n", c->name, c->summary);
	fprintf(fp, "\n'bench <command> -h' shows a command's options; exit codes: docs/exit-codes.md\n");
}

int cmd_help(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "-h") && strcmp(argv[1], "--help")) {
		for (const struct command *c = commands; c->name; c++) {
			if (!strcmp(c->name, argv[1])) {
				char *hv[] = { argv[1], "-h", NULL };

				return c->fn(2, hv);
			}
		}
		fprintf(stderr, "bench: error: no such command '%s' (see 'bench help')\n", argv[1]);
		return 2;
	}
	print_usage(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	const char *names[32];
	const char *best;
	size_t n = 0;

	if (argc < 2) {
		print_usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--version"))
		return cmd_version(1, argv + 1);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		print_usage(stdout);
		return 0;
	}
	if (argv[1][0] == '-') {
		fprintf(stderr, "bench: error: unknown option '%s' (options go after the command; see 'bench help')\n",
			argv[1]);
		return 2;
	}
	for (const struct command *c = commands; c->name; c++) {
		if (!strcmp(c->name, argv[1]))
			return c->fn(argc - 1, argv + 1);
		names[n++] = c->name;
	}
	names[n] = NULL;
	best = suggest_closest(argv[1], names);
	if (best)
		fprintf(stderr, "bench: error: unknown command '%s' (did you mean '%s'?)\n", argv[1], best);
	else
		fprintf(stderr, "bench: error: unknown command '%s' (see 'bench help')\n", argv[1]);
	return 2;
}
