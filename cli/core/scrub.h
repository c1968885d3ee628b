/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scrub.h — keeping secrets out of what bench writes: which variable names are secret, a value with its
 * credentials redacted, and the scrubbing of texts, files and a whole run directory of the values of secret
 * variables and of credential shapes (docs/architecture.md, "Secrets"). Used by the environment capture, the
 * run before it packs, bench pack and the bundle's member names.
 *
 * Ownership: the redact functions return new strings (caller frees); scrub_secret_values() and scrub_text()
 * append to the caller's vector or buffer; files are rewritten in place.
 */
#ifndef BENCH_SCRUB_H
#define BENCH_SCRUB_H

#include <stdint.h>
#include <stddef.h>

/* The redaction policy (docs/architecture.md, "Secrets"). A name is secret when it is on the deny list
 * ($BENCH_ENV_REDACT), else not when it is on the allow list ($BENCH_ENV_KEEP) or is PWD/OLDPWD (the shell's
 * directories), else when it contains, case-insensitively, one of TOKEN SECRET PASSWORD PASSWD PASS PASSPHRASE
 * PWD AUTH COOKIE PRIVATE CERT SESSION API KEY CREDENTIAL CRED SIGNATURE SALT. Lists are comma-separated
 * shell patterns (fnmatch, case-sensitive). Returns 1 when secret. */
int scrub_is_secret(const char *name);
/* value with the userinfo of every URL in it replaced ("https://u:p@h/" -> "https://<redacted>@h/"); a new
 * string. */
char *scrub_redact_url(const char *value);
/* value with every credential in it replaced by <redacted>: URL userinfo (scrub_redact_url()), a credential
 * without a scheme (user:password@host[:port]), and the value of every KEY=VALUE, KEY: VALUE or "KEY": "VALUE"
 * inside it whose KEY scrub_is_secret() names (JSON or a query string in a captured variable), a quoted value up
 * to its closing quote, a YAML block scalar's lines; a new string. */
char *scrub_redact_value(const char *value);
/* The texts to scrub from logs: every value (and every line of a multi-line value) of at least
 * SCRUB_MIN bytes of a secret variable of env (NAME=VALUE entries, NULL-terminated), added to out. */
#define SCRUB_MIN 8
struct strvec;
void scrub_secret_values(struct strvec *out, char *const *env);
/* text with each of values replaced by <redacted>, the value of every NAME=VALUE line of a secret NAME too,
 * and URL userinfo removed; appended to out. */
struct strbuf;
void scrub_text(struct strbuf *out, const char *text, size_t len, const struct strvec *values);
/* Scrubs the file at path in place (a temporary file renamed over it; removed on failure). 0 or BENCH_E_IO.
 * Text is scrubbed by byte ranges: a NUL byte is kept, never the end of a line. A binary file (a NUL byte among
 * its first 8000; logs and JSON are always text) is scrubbed byte-exactly: each secret value, token shape and
 * JSON Web Token in it overwritten by as many '*' bytes, its length kept (after an AWS access key id, or after
 * the name of an AWS secret key, the 40-character secret key too, the separator and the name kept); one larger than
 * SCRUB_BINARY_MAX is left as it is (no bundle member may be that large: pack refuses it by name). */
#define SCRUB_BINARY_MAX ((size_t)256 << 20)
int scrub_file(const char *path, const struct strvec *values);
/* Every regular file of the run directory dir (recursively, links not followed; .bench-lock, and at its top
 * .bench-reserve, never packed, and manifest.yaml, manifest.lock.json and inputs/ left as they are: the run's
 * inputs, signed by their digests)
 * scrubbed with scrub_file(); a file that cannot be scrubbed is removed, with a warning on stderr, rather
 * than packed with a secret in it. A hard link, or a file larger than limit(its path under dir) (SCRUB_BINARY_MAX
 * when limit is NULL), is not read: pack refuses it by name. A full disk (ENOSPC, EDQUOT) stops it with the file
 * as it was: BENCH_E_IO, "no space left on device in ...", errno ENOSPC or EDQUOT. A file or directory whose name
 * holds one of values or what a secret rule matches (scrub_redact_value() changes it; a name is never rewritten) is
 * refused once every file is scrubbed: BENCH_E_FAIL, the first such name shown redacted, errno 0; the directory must
 * not be packed. 0 or one of those codes. Used by bench run before it packs, and by bench pack. */
int scrub_dir(const char *dir, const struct strvec *values, uint64_t (*limit)(const char *rel));

#endif
