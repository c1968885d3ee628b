/* SPDX-License-Identifier: Apache-2.0 */
/*
 * opt.h — table-driven command-line options, after git's parse-options. The same table parses argv and
 * prints the command's -h text, so the help can never drift from what is accepted.
 *
 * Ownership: string values point into argv (not copied); list values are appended to a caller-owned
 * struct opt_strlist, freed with opt_strlist_release(). opt_parse() permutes argv so the positional
 * arguments come first.
 */
#ifndef BENCH_OPT_H
#define BENCH_OPT_H

#include <stddef.h>
#include <stdio.h>

enum opt_type {
	OPT_T_END = 0,
	OPT_T_BOOL,   /* int *: set to 1 */
	OPT_T_COUNT,  /* int *: incremented (-v -v) */
	OPT_T_STRING, /* const char **: the argument */
	OPT_T_LIST,   /* struct opt_strlist *: comma-separated, repeatable */
};

struct opt {
	enum opt_type type;
	char short_name;
	const char *long_name;
	void *value;
	const char *argh; /* placeholder in help, e.g. "DIR" */
	const char *help;
};

struct opt_strlist {
	char **v; /* NULL-terminated once it holds anything; NULL while empty */
	size_t n, alloc;
};

#define OPT_STRLIST_INIT { NULL, 0, 0 }
#define OPT_BOOL(s, l, v, h) { OPT_T_BOOL, (s), (l), (v), NULL, (h) }
#define OPT_COUNT(s, l, v, h) { OPT_T_COUNT, (s), (l), (v), NULL, (h) }
#define OPT_STRING(s, l, v, a, h) { OPT_T_STRING, (s), (l), (v), (a), (h) }
#define OPT_LIST(s, l, v, a, h) { OPT_T_LIST, (s), (l), (v), (a), (h) }
#define OPT_END() { OPT_T_END, 0, NULL, NULL, NULL, NULL }

struct opt_cmd {
	const char *name;     /* "plan" */
	const char *synopsis; /* "[options] MANIFEST" */
	const char *summary;  /* one line */
};

/* opt_parse() returns the number of positional arguments (left at argv[0..n-1]), OPT_HELP after printing
 * the help for -h/--help, or BENCH_E_USAGE after printing a message naming the bad option. */
#define OPT_HELP 1000000
int opt_parse(int argc, char **argv, const struct opt *opts, const struct opt_cmd *cmd);
void opt_print_help(FILE *fp, const struct opt *opts, const struct opt_cmd *cmd);
void opt_strlist_release(struct opt_strlist *l);

#endif
