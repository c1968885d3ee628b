/*
 * cmd.h — the command table's entry points. Each cmd_<verb>() parses its options from a table, calls library
 * code, prints, and returns the process exit status (DESIGN.md §8). No logic another command could need lives
 * in a cmd_*.c file.
 *
 * Ownership: commands own nothing beyond their call; argv belongs to main().
 */
#ifndef BENCH_CMD_H
#define BENCH_CMD_H

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

extern const struct command commands[];

int cmd_help(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_suites(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_pack(int argc, char **argv);
int cmd_keygen(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_publish(int argc, char **argv);
int cmd_lock(int argc, char **argv);
int cmd_recipe(int argc, char **argv);
int cmd_build(int argc, char **argv);

/* Packs dir with $BENCH_HOME's key, creating the key on first use (and saying so unless quiet). */
int pack_with_own_key(char **tar, char **env, const char *dir, int quiet, int level);

/* Prints "bench: error: <last error>" and returns the exit status for err. */
int cli_fail(int err);
/* Prints "bench: error: <msg>", the usage line of cmd, and returns 2. */
int cli_usage_error(const char *cmd, const char *synopsis, const char *msg);
struct manifest;
/* Parses path into m; on failure prints every problem (or the I/O error) and returns the exit status. */
int cli_load_manifest(struct manifest *m, const char *path);
/* The lock beside a manifest: x.yaml -> x.lock.json (caller frees). */
char *cli_lock_path(const char *manifest);
/* Reads the manifest and its lock (lock, else MANIFEST.lock.json) into new buffers. Returns 0, or the exit
 * status after printing the error; needs says why the command wants a lock. */
int cli_read_manifest_lock(char **mbuf, size_t *mlen, char **lbuf, size_t *llen, const char *manifest,
			   const char *lock, const char *needs);
/* Writes json (decref'd here) to stdout, sorted keys, two-space indent, trailing newline. */
int cli_print_json(void *json);

#endif
