/* SPDX-License-Identifier: Apache-2.0 */
#include "opt.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"
#include "suggest.h"

static void strlist_add_csv(struct opt_strlist *l, const char *arg)
{
	const char *p = arg;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (len) {
			ALLOC_GROW(l->v, l->n + 2, l->alloc);
			l->v[l->n++] = xstrndup(p, len);
			l->v[l->n] = NULL; /* NULL-terminated: the list can be passed on as it is */
		}
		if (!comma)
			break;
		p = comma + 1;
	}
}

void opt_strlist_release(struct opt_strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->alloc = 0;
}

static int takes_arg(const struct opt *o)
{
	return o->type == OPT_T_STRING || o->type == OPT_T_LIST;
}

static void usage_error(const struct opt *opts, const struct opt_cmd *cmd, const char *fmt, const char *a,
			const char *b)
{
	fprintf(stderr, "bench: error: ");
	fprintf(stderr, fmt, a, b);
	fprintf(stderr, "\nusage: bench %s %s\n(see 'bench %s -h')\n", cmd->name, cmd->synopsis, cmd->name);
	(void)opts;
}

static void suggest_long(const struct opt *opts, const struct opt_cmd *cmd, const char *name)
{
	const char *cands[64];
	size_t n = 0;
	const char *best;

	for (const struct opt *o = opts; o->type != OPT_T_END && n < 61; o++)
		if (o->long_name)
			cands[n++] = o->long_name;
	cands[n++] = "help";
	cands[n] = NULL;
	best = suggest_closest(name, cands);
	if (best) {
		char *msg = xstrfmt("unknown option '--%s' for '%s' (did you mean '--%s'?)", name, cmd->name, best);

		usage_error(opts, cmd, "%s%s", msg, "");
		free(msg);
	} else {
		usage_error(opts, cmd, "unknown option '--%s' for '%s'", name, cmd->name);
	}
}

static int apply(const struct opt *o, const char *arg)
{
	switch (o->type) {
	case OPT_T_BOOL:
		*(int *)o->value = 1;
		break;
	case OPT_T_COUNT:
		(*(int *)o->value)++;
		break;
	case OPT_T_STRING:
		*(const char **)o->value = arg;
		break;
	case OPT_T_LIST:
		strlist_add_csv(o->value, arg);
		break;
	case OPT_T_END:
		break;
	}
	return 0;
}

int opt_parse(int argc, char **argv, const struct opt *opts, const struct opt_cmd *cmd)
{
	char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	int npos = 0, i, ret = 0;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		const struct opt *o = NULL;
		const char *val = NULL;

		if (!strcmp(a, "--")) {
			for (i++; i < argc; i++)
				pos[npos++] = argv[i];
			break;
		}
		if (a[0] != '-' || a[1] == '\0') {
			pos[npos++] = argv[i];
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			opt_print_help(stdout, opts, cmd);
			ret = OPT_HELP;
			goto cleanup;
		}
		if (a[1] == '-') {
			const char *name = a + 2;
			const char *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);

			for (const struct opt *p = opts; p->type != OPT_T_END; p++)
				if (p->long_name && strlen(p->long_name) == len && !strncmp(p->long_name, name, len))
					o = p;
			if (!o) {
				char *n = xstrndup(name, len);

				suggest_long(opts, cmd, n);
				free(n);
				ret = BENCH_E_USAGE;
				goto cleanup;
			}
			if (eq && !takes_arg(o)) {
				usage_error(opts, cmd, "option '--%s' takes no value%s", o->long_name, "");
				ret = BENCH_E_USAGE;
				goto cleanup;
			}
			if (takes_arg(o))
				val = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
		} else {
			char sn[3] = { '-', a[1], 0 };

			for (const struct opt *p = opts; p->type != OPT_T_END; p++)
				if (p->short_name && p->short_name == a[1])
					o = p;
			if (!o) {
				usage_error(opts, cmd, "unknown option '%s' for '%s'", sn, cmd->name);
				ret = BENCH_E_USAGE;
				goto cleanup;
			}
			if (takes_arg(o))
				val = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
			else if (a[2]) {
				usage_error(opts, cmd, "option '%s' takes no value (got '%s')", sn, a);
				ret = BENCH_E_USAGE;
				goto cleanup;
			}
		}
		if (takes_arg(o) && !val) {
			usage_error(opts, cmd, "option '%s' needs a value (%s)", a, o->argh ? o->argh : "ARG");
			ret = BENCH_E_USAGE;
			goto cleanup;
		}
		apply(o, val);
	}
	for (i = 0; i < npos; i++)
		argv[i] = pos[i];
	ret = npos;
cleanup:
	free(pos);
	return ret;
}

void opt_print_help(FILE *fp, const struct opt *opts, const struct opt_cmd *cmd)
{
	fprintf(fp, "usage: bench %s %s\n\n%s\n\noptions:\n", cmd->name, cmd->synopsis, cmd->summary);
	for (const struct opt *o = opts; o->type != OPT_T_END; o++) {
		struct strbuf sb = STRBUF_INIT;

		if (o->short_name)
			strbuf_addf(&sb, "-%c", o->short_name);
		if (o->short_name && o->long_name)
			strbuf_addstr(&sb, ", ");
		if (o->long_name)
			strbuf_addf(&sb, "--%s", o->long_name);
		if (takes_arg(o))
			strbuf_addf(&sb, " %s", o->argh ? o->argh : "ARG");
		fprintf(fp, "  %-24s %s\n", sb.buf, o->help);
		strbuf_release(&sb);
	}
	fprintf(fp, "  %-24s %s\n", "-h, --help", "show this help");
}
