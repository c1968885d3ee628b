/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_validate.c — bench validate FILE...: every problem of every file, then exit 3 if any. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd.h"
#include "core/strbuf.h"
#include "core/scrub.h"
#include "core/escape.h"
#include "core/opt.h"
#include "manifest/manifest.h"
#include "manifest/plan.h"

static const struct opt_cmd cmd = { "validate", "[-q] [--json] MANIFEST...",
				    "Check manifests against format v1 (docs/manifest-format.md) and report every problem "
				    "of each file as file:line:col: error: message. Exit 3 when any file is invalid." };

/* one warning per stack.env (or variant env) variable that reads like a secret: its name is a secret's, or a
 * secret rule finds a credential in its value. The manifest is packed verbatim into every bundle (its sha256 is
 * the run's identity), so such a value would be signed and shared; the value itself is never printed. */
static void warn_env_secrets(const char *path, const char *where, const struct env_var *env, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *red = scrub_redact_value(env[i].value ? env[i].value : "");

		if (scrub_is_secret(env[i].name) || strcmp(red, env[i].value ? env[i].value : "")) {
			char *e = esc_text(env[i].name);

			fprintf(stderr, "%s: warning: %s.%s looks like a secret; manifest.yaml goes verbatim into every bundle "
				"(its sha256 is the run's identity): set it in bench's environment instead\n", path, where, e);
			free(e);
		}
		free(red);
	}
}

/* the same for a component's pip index and git URL: credentials in them (URL userinfo, a token) go verbatim into
 * every bundle, in the manifest and in the lock; the URL is never printed */
static void warn_component_secrets(const char *path, const struct manifest *m)
{
	for (size_t i = 0; i < m->stack.ncomponents; i++) {
		const struct component *c = &m->stack.components[i];
		const char *urls[2] = { c->index, c->git }, *what[2] = { "index", "git" };

		for (int k = 0; k < 2; k++) {
			char *red;

			if (!urls[k])
				continue;
			red = scrub_redact_value(urls[k]);
			if (strcmp(red, urls[k])) {
				char *e = esc_text(c->name);

				fprintf(stderr, "%s: warning: stack.components.%s.%s holds credentials; manifest.yaml and its lock "
					"go verbatim into every bundle: give them to pip or git through bench's environment "
					"(PIP_INDEX_URL, a credential helper, .netrc) instead\n", path, e, what[k]);
				free(e);
			}
			free(red);
		}
	}
}

static void warn_secrets(const char *path, const struct manifest *m)
{
	warn_env_secrets(path, "stack.env", m->stack.env, m->stack.nenv);
	warn_component_secrets(path, m);
	for (size_t v = 0; v < m->nvariants; v++) {
		char *w = xstrfmt("variants.%s.env", m->variants[v].name);

		warn_env_secrets(path, w, m->variants[v].env, m->variants[v].nenv);
		free(w);
	}
}

int cmd_validate(int argc, char **argv)
{
	int quiet = 0, json = 0, n, status = 0;
	const struct opt opts[] = {
		OPT_BOOL('q', "quiet", &quiet, "print nothing for valid files"),
		OPT_BOOL(0, "json", &json, "print one JSON result per file (problems included) to stdout"),
		OPT_END(),
	};
	json_t *out = json_array();

	n = opt_parse(argc - 1, argv + 1, opts, &cmd);
	if (n == OPT_HELP || n < 0) {
		json_decref(out);
		return n < 0 ? 2 : 0;
	}
	if (n == 0) {
		json_decref(out);
		return cli_usage_error(cmd.name, cmd.synopsis, "no manifest given");
	}
	for (int i = 0; i < n; i++) {
		const char *path = argv[1 + i];
		struct diag_list diags = DIAG_LIST_INIT;
		struct manifest m = MANIFEST_INIT;
		struct plan plan = PLAN_INIT;
		int err = manifest_parse_file(&m, &diags, path);

		if (!err)
			err = plan_build_diag(&plan, &m, &diags);
		if (json) {
			json_t *errs = json_array();

			for (size_t k = 0; k < diags.n; k++)
				json_array_append_new(errs, json_pack("{s:i, s:i, s:s}", "line", diags.items[k].line, "col",
								      diags.items[k].col, "message", diags.items[k].msg));
			if (err < 0 && diags.n == 0)
				json_array_append_new(errs, json_pack("{s:i, s:i, s:s}", "line", 0, "col", 0, "message",
								      bench_error_last()));
			json_array_append_new(out, json_pack("{s:s, s:b, s:I, s:o}", "file", path, "valid", err == 0,
							     "cases", (json_int_t)plan.n, "errors", errs));
		} else if (err < 0 && diags.n) {
			diag_list_print(&diags, stderr);
		} else if (err < 0) {
			cli_fail(err);
		} else if (!quiet) { /* the path escaped as the error lines escape it */
			char *ep = esc_text(path), *en = esc_text(m.name);

			printf("%s: ok (%s, %zu case%s)\n", ep, en, plan.n, plan.n == 1 ? "" : "s");
			free(ep);
			free(en);
		}
		if (err == 0 && !quiet) {
			char *ep = esc_text(path);

			warn_secrets(ep, &m);
			free(ep);
		}
		if (err < 0 && (status == 0 || bench_exit_code(err) == 3))
			status = bench_exit_code(err); /* an invalid manifest outranks an unreadable one */
		plan_release(&plan);
		manifest_release(&m);
		diag_list_release(&diags);
	}
	if (json)
		cli_print_json(out);
	else
		json_decref(out);
	return status;
}
