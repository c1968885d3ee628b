/* SPDX-License-Identifier: Apache-2.0 */
/* secrets.c — the manifest values that read like secrets (secrets.h). */
#include "secrets.h"

#include <stdlib.h>
#include <string.h>

#include "core/escape.h"
#include "core/strbuf.h"
#include "core/scrub.h"

/* one warning per stack.env (or variant env) variable that reads like a secret: its name is a secret's, or a
 * secret rule finds a credential in its value. The manifest is packed verbatim into every bundle (its sha256 is
 * the run's identity), so such a value would be signed and shared; the value itself is never printed. */
static void warn_env_secrets(FILE *fp, const char *path, const char *where, const struct env_var *env, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *red = scrub_redact_value(env[i].value ? env[i].value : "");

		if (scrub_is_secret(env[i].name) || strcmp(red, env[i].value ? env[i].value : "")) {
			char *e = esc_text(env[i].name);

			fprintf(fp, "%s: warning: %s.%s looks like a secret; manifest.yaml goes verbatim into every bundle "
				"(its sha256 is the run's identity): set it in bench's environment instead\n", path, where, e);
			free(e);
		}
		free(red);
	}
}

/* the same for a component's pip index and git URL: credentials in them (URL userinfo, a token) go verbatim into
 * every bundle, in the manifest and in the lock; the URL is never printed */
static void warn_component_secrets(FILE *fp, const char *path, const struct manifest *m)
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

				fprintf(fp, "%s: warning: stack.components.%s.%s holds credentials; manifest.yaml and its lock "
					"go verbatim into every bundle: give them to pip or git through bench's environment "
					"(PIP_INDEX_URL, a credential helper, .netrc) instead\n", path, e, what[k]);
				free(e);
			}
			free(red);
		}
	}
}

/* the same for each variable of a suite's env_matrix: its name is a secret's, or a secret rule finds a credential
 * in one of its values. Each value goes into the case keys of every record, plan and summary (a case key is never
 * scrubbed) besides the manifest; no value is printed. */
static void warn_matrix_secrets(FILE *fp, const char *path, const struct suite_cfg *cfg)
{
	for (size_t i = 0; i < cfg->nenv_matrix; i++) {
		const struct env_axis *ax = &cfg->env_matrix[i];
		int secret = scrub_is_secret(ax->name);

		for (size_t k = 0; k < ax->nvalues && !secret; k++) {
			char *red = scrub_redact_value(ax->values[k]);

			secret = strcmp(red, ax->values[k]) != 0;
			free(red);
		}
		if (secret) {
			char *e = esc_text(ax->name);

			fprintf(fp, "%s: warning: suites.%s.env_matrix.%s looks like a secret; manifest.yaml goes verbatim into "
				"every bundle and each value into the case keys of every output: set it in bench's environment "
				"instead\n", path, cfg->ops->name, e);
			free(e);
		}
	}
}

void secrets_warn_manifest(FILE *fp, const char *path, const struct manifest *m)
{
	warn_env_secrets(fp, path, "stack.env", m->stack.env, m->stack.nenv);
	warn_component_secrets(fp, path, m);
	for (size_t v = 0; v < m->nvariants; v++) {
		char *w = xstrfmt("variants.%s.env", m->variants[v].name);

		warn_env_secrets(fp, path, w, m->variants[v].env, m->variants[v].nenv);
		free(w);
	}
	for (size_t i = 0; i < m->nsuites; i++)
		warn_matrix_secrets(fp, path, &m->suites[i]);
}
