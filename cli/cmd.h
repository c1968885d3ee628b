/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd.h — the command table's entry points. Each cmd_<verb>() parses its options from a table, calls library
 * code, prints, and returns the process exit status (docs/exit-codes.md). No logic another command could need
 * lives in a cmd_*.c file: what they share is in cli.h, which this header includes; the table itself is in main.c.
 *
 * Ownership: commands own nothing beyond their call; argv belongs to main().
 */
#ifndef BENCH_CMD_H
#define BENCH_CMD_H

#include "cli.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

int cmd_version(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_suites(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_pack(int argc, char **argv);
int cmd_keygen(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_ls(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_reproduce(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_publish(int argc, char **argv);
int cmd_lock(int argc, char **argv);
int cmd_recipe(int argc, char **argv);
int cmd_build(int argc, char **argv);
int cmd_gc(int argc, char **argv);

#endif
