/* SPDX-License-Identifier: Apache-2.0 */
#include "suite.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"

extern const struct suite_ops suite_gemm;
extern const struct suite_ops suite_membw;
extern const struct suite_ops suite_collectives;
extern const struct suite_ops suite_attention;
extern const struct suite_ops suite_ssm;
extern const struct suite_ops suite_training;

/* The registry: one line per suite, in the order plans and reports list them. */
const struct suite_ops *const suite_registry[] = {
	&suite_gemm,
	&suite_membw,
	&suite_collectives,
	&suite_attention,
	&suite_ssm,
	&suite_training,
	NULL,
};

const struct suite_ops *suite_find(const char *name)
{
	for (size_t i = 0; suite_registry[i]; i++)
		if (!strcmp(suite_registry[i]->name, name))
			return suite_registry[i];
	return NULL;
}

const char *const *suite_names(void)
{
	static const char *names[16];

	if (!names[0])
		for (size_t i = 0; suite_registry[i] && i < 15; i++)
			names[i] = suite_registry[i]->name;
	return names;
}

const struct param_value *suite_cfg_get(const struct suite_cfg *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->nvalues; i++)
		if (cfg->values[i].def && !strcmp(cfg->values[i].def->name, name))
			return &cfg->values[i];
	return NULL;
}

void suite_cfg_release(struct suite_cfg *cfg)
{
	for (size_t i = 0; i < cfg->nvalues; i++)
		param_value_release(&cfg->values[i]);
	free(cfg->values);
	for (size_t i = 0; i < cfg->nenv_matrix; i++) {
		free(cfg->env_matrix[i].name);
		for (size_t k = 0; k < cfg->env_matrix[i].nvalues; k++)
			free(cfg->env_matrix[i].values[k]);
		free(cfg->env_matrix[i].values);
	}
	free(cfg->env_matrix);
	memset(cfg, 0, sizeof(*cfg));
}

size_t suite_env_cells(const struct suite_cfg *cfg)
{
	size_t n = 1;

	for (size_t i = 0; i < cfg->nenv_matrix; i++)
		n *= cfg->env_matrix[i].nvalues;
	return n;
}

json_t *suite_env_cell(const struct suite_cfg *cfg, size_t cell, struct strbuf *label)
{
	json_t *o = json_object();
	size_t *pick = xcalloc(cfg->nenv_matrix ? cfg->nenv_matrix : 1, sizeof(*pick));

	/* mixed radix, the last variable fastest: the cells in the order of nested loops over the manifest's lists */
	for (size_t i = cfg->nenv_matrix; i-- > 0;) {
		pick[i] = cell % cfg->env_matrix[i].nvalues;
		cell /= cfg->env_matrix[i].nvalues;
	}
	for (size_t i = 0; i < cfg->nenv_matrix; i++) {
		const char *v = cfg->env_matrix[i].values[pick[i]];

		json_object_set_new(o, cfg->env_matrix[i].name, json_string(v));
		if (!label)
			continue;
		strbuf_addf(label, "%s%s=", i ? "," : "", cfg->env_matrix[i].name);
		for (const unsigned char *p = (const unsigned char *)v; *p; p++)
			if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
			    strchr("._+^:@-", *p))
				strbuf_addch(label, (char)*p);
			else
				strbuf_addf(label, "%%%02X", *p);
	}
	free(pick);
	return o;
}

json_t *suite_params_json(const struct suite_cfg *cfg, const char *const *skip)
{
	json_t *o = json_object();

	for (size_t i = 0; i < cfg->nvalues; i++) {
		const char *name = cfg->values[i].def->name;
		int skipped = 0;

		for (size_t j = 0; skip && skip[j]; j++)
			skipped |= !strcmp(skip[j], name);
		if (skipped)
			continue;
		if (cfg->values[i].def->type == PARAM_DURATION) { /* the unit goes into the key */
			char *k = xstrfmt("%s_ms", name);

			json_object_set_new(o, k, param_value_json(&cfg->values[i]));
			free(k);
		} else {
			json_object_set_new(o, name, param_value_json(&cfg->values[i]));
		}
	}
	return o;
}

void suite_check_error(struct suite_check *c, const struct param_value *at, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	int line = at && at->line ? at->line : c->cfg->line;
	int col = at && at->line ? at->col : c->cfg->col;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (!(at && at->line) && at)
		strbuf_addf(&sb, " (default of '%s' in suite '%s')", at->def->name, c->cfg->ops->name);
	diag_add(c->diags, c->file, line, col, "%s", sb.buf);
	strbuf_release(&sb);
}
