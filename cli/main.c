/* SPDX-License-Identifier: Apache-2.0 */
/* main.c — the command table, global options and dispatch; the helpers commands share are in cli.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "core/suggest.h"

static int cmd_help(int argc, char **argv);

static const struct command commands[] = {
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
	{ "ls", cmd_ls, "list the runs and bundles under a directory, with their counts and whether they verify" },
	{ "compare", cmd_compare, "compare runs or bundles case by case, with confidence intervals" },
	{ "reproduce", cmd_reproduce, "verify a bundle, run its cases again here and judge each against it" },
	{ "report", cmd_report, "write a self-contained HTML report of runs or bundles" },
	{ "publish", cmd_publish, "add verified bundles to a results repository and regenerate its site" },
	{ "gc", cmd_gc, "remove the runs and bundles beyond the retention policy (newest N per manifest, published)" },
	{ "version", cmd_version, "print bench's version, commit and linked library versions" },
	{ "help", cmd_help, "show help for bench or for one command" },
	{ NULL, NULL, NULL },
};

static void print_usage(FILE *fp)
{
	fprintf(fp, "usage: bench [--version] [-h | --help] <command> [<args>]\n\ncommands:\n");
	for (const struct command *c = commands; c->name; c++)
		fprintf(fp, "  %-10s %s\n", c->name, c->summary);
	fprintf(fp, "\n'bench <command> -h' shows a command's options; exit codes: docs/exit-codes.md\n");
}

static int cmd_help(int argc, char **argv)
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
