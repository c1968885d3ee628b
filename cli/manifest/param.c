/* SPDX-License-Identifier: Apache-2.0 */
#include "param.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/suggest.h"
#include "core/units.h"
#include "plugin.h"

static const struct gemm_shape llama70b_shapes[] = {
	{ 16384, 8192, 1280 }, { 16384, 1024, 8192 }, { 16384, 8192, 7168 }, { 16384, 3584, 8192 }, { 8192, 8192, 8192 },
};

const struct shape_preset shape_presets[] = {
	{ "llama70b", llama70b_shapes, sizeof(llama70b_shapes) / sizeof(llama70b_shapes[0]) },
	{ NULL, NULL, 0 },
};

#define GEMM_DIM_MAX (1LL << 20)

const char *param_type_name(enum param_type t)
{
	switch (t) {
	case PARAM_BOOL: return "bool";
	case PARAM_INT: return "int";
	case PARAM_NUMBER: return "number";
	case PARAM_SIZE: return "size";
	case PARAM_DURATION: return "duration";
	case PARAM_ENUM: return "enum";
	case PARAM_STRING: return "string";
	case PARAM_ENUM_LIST: return "list of enum";
	case PARAM_INT_LIST: return "list of int";
	case PARAM_BOOL_LIST: return "list of bool";
	case PARAM_SIZE_LIST: return "list of size";
	case PARAM_SHAPES: return "shapes";
	}
	return "?";
}

const char *param_default_text(const struct param_def *def, const char *vendor)
{
	if (vendor && !strcmp(vendor, "cpu") && def->def_cpu)
		return def->def_cpu;
	if (vendor && !strcmp(vendor, "rocm") && def->def_rocm)
		return def->def_rocm;
	return def->def;
}

int param_enum_index(const struct param_def *def, const char *s)
{
	for (int i = 0; def->choices && def->choices[i]; i++)
		if (!strcmp(def->choices[i], s))
			return i;
	return -1;
}

static void choices_text(struct strbuf *sb, const struct param_def *def)
{
	for (size_t i = 0; def->choices[i]; i++)
		strbuf_addf(sb, "%s%s", i ? ", " : "", def->choices[i]);
}

static int is_plain_scalar(const struct ynode *n)
{
	return n->type == YNODE_SCALAR && n->plain && !ynode_is_null(n);
}

/* Shows a node in a message: its text for scalars (shortened), its kind otherwise. */
static char *shown(const struct ynode *n)
{
	if (n->type == YNODE_SCALAR && !ynode_is_null(n)) {
		if (n->len > 40)
			return xstrfmt("'%.37s...'", n->value);
		return xstrfmt("'%s'", n->value);
	}
	return xstrdup(ynode_type_name(n));
}

static int parse_int_text(long long *out, const char *s)
{
	char *end;

	if (!*s || (!(*s >= '0' && *s <= '9') && *s != '-' && *s != '+'))
		return -1;
	errno = 0;
	*out = strtoll(s, &end, 10);
	if (errno || *end)
		return -1;
	return 0;
}

static int range_ok(const struct param_def *def, long long v)
{
	return v >= def->min && (def->max == 0 || v <= def->max);
}

static void range_msg(struct strbuf *sb, const struct param_def *def)
{
	if (def->max)
		strbuf_addf(sb, "between %lld and %lld", def->min, def->max);
	else
		strbuf_addf(sb, "at least %lld", def->min);
}

static int one_bool(long long *out, const struct ynode *n, struct diag_list *d, const char *file, const char *label)
{
	char *s;

	if (is_plain_scalar(n) && !strcmp(n->value, "true")) {
		*out = 1;
		return 0;
	}
	if (is_plain_scalar(n) && !strcmp(n->value, "false")) {
		*out = 0;
		return 0;
	}
	s = shown(n);
	ynode_diag(d, file, n, "%s must be true or false, got %s", label, s);
	free(s);
	return -1;
}

static int one_int(long long *out, const struct param_def *def, const struct ynode *n, struct diag_list *d,
		   const char *file, const char *label)
{
	struct strbuf sb = STRBUF_INIT;
	char *s;
	long long v;

	if (!is_plain_scalar(n) || parse_int_text(&v, n->value) < 0) {
		s = shown(n);
		ynode_diag(d, file, n, "%s must be an integer, got %s", label, s);
		free(s);
		return -1;
	}
	if (!range_ok(def, v)) {
		range_msg(&sb, def);
		ynode_diag(d, file, n, "%s must be %s, got %lld", label, sb.buf, v);
		strbuf_release(&sb);
		return -1;
	}
	*out = v;
	return 0;
}

/* A quantity written with a unit: a size (bytes) or a duration (ns), read and shown by core/units.h. */
struct quantity {
	const char *example; /* "a size such as 64MiB" */
	int (*parse)(uint64_t *out, const char *s, char *why, size_t whylen);
	void (*format)(char *buf, size_t len, uint64_t v);
	int nonzero;         /* 0 is refused (and the lower bound shown is at least 1) */
};

static const struct quantity size_quantity = { "a size such as 64MiB", units_parse_size, units_format_size, 0 };
static const struct quantity duration_quantity = { "a duration such as 30ms", units_parse_duration,
						   units_format_duration, 1 };

static int one_quantity(long long *out, const struct quantity *q, const struct param_def *def, const struct ynode *n,
			struct diag_list *d, const char *file, const char *label)
{
	char why[160], a[32], b[32];
	uint64_t v;

	if (n->type != YNODE_SCALAR || ynode_is_null(n)) {
		ynode_diag(d, file, n, "%s must be %s, got %s", label, q->example, ynode_type_name(n));
		return -1;
	}
	if (q->parse(&v, n->value, why, sizeof(why)) < 0) {
		ynode_diag(d, file, n, "%s: %s, got '%s'", label, why, n->value);
		return -1;
	}
	if ((q->nonzero && v == 0) || !range_ok(def, (long long)v)) {
		q->format(a, sizeof(a), (uint64_t)(q->nonzero && !def->min ? 1 : def->min));
		if (def->max) {
			q->format(b, sizeof(b), (uint64_t)def->max);
			ynode_diag(d, file, n, "%s must be between %s and %s, got '%s'", label, a, b, n->value);
		} else {
			ynode_diag(d, file, n, "%s must be at least %s, got '%s'", label, a, n->value);
		}
		return -1;
	}
	*out = (long long)v;
	return 0;
}

static int one_enum(char **out, const struct param_def *def, const struct ynode *n, struct diag_list *d,
		    const char *file, const char *label)
{
	struct strbuf sb = STRBUF_INIT;
	const char *best;

	if (n->type == YNODE_SCALAR && !ynode_is_null(n) && param_enum_index(def, n->value) >= 0) {
		*out = xstrdup(n->value);
		return 0;
	}
	choices_text(&sb, def);
	if (n->type == YNODE_SCALAR && !ynode_is_null(n)) {
		best = suggest_closest(n->value, def->choices);
		if (best)
			ynode_diag(d, file, n, "%s must be one of %s; got '%s' (did you mean '%s'?)", label, sb.buf, n->value, best);
		else
			ynode_diag(d, file, n, "%s must be one of %s; got '%s'", label, sb.buf, n->value);
	} else {
		ynode_diag(d, file, n, "%s must be one of %s; got %s", label, sb.buf, ynode_type_name(n));
	}
	strbuf_release(&sb);
	return -1;
}

static int one_number(double *out, const struct param_def *def, const struct ynode *n, struct diag_list *d,
		      const char *file, const char *label)
{
	char *end, *s;

	if (is_plain_scalar(n)) {
		errno = 0;
		*out = strtod(n->value, &end);
		if (!errno && !*end && isfinite(*out) && *out >= (double)def->min &&
		    (def->max == 0 || *out <= (double)def->max))
			return 0;
	}
	s = shown(n);
	ynode_diag(d, file, n, "%s must be a number greater than or equal to %lld, got %s", label, def->min, s);
	free(s);
	return -1;
}

static int one_string(char **out, const struct ynode *n, struct diag_list *d, const char *file, const char *label)
{
	if (n->type != YNODE_SCALAR || ynode_is_null(n) || strlen(n->value) != n->len) {
		ynode_diag(d, file, n, "%s must be a string, got %s", label, ynode_type_name(n));
		return -1;
	}
	if (ynode_control_char(n, 0) >= 0) {
		/* the one rule of manifest.c: a parameter string reaches the runner's command line and cases file */
		ynode_diag(d, file, n, "%s holds a control character (\\x%02x); strings here may not contain control "
		    "characters", label, ynode_control_char(n, 0));
		return -1;
	}
	*out = xstrdup(n->value);
	return 0;
}

/* a list entry and its position, sorted to find the entries listed twice (n log n) */
struct shape_at {
	struct gemm_shape s;
	size_t at;
};

static int cmp_ll(long long a, long long b)
{
	return a < b ? -1 : a > b;
}

static int cmp_shape_at(const void *pa, const void *pb)
{
	const struct shape_at *a = pa, *b = pb;
	int c = cmp_ll(a->s.m, b->s.m);

	if (!c)
		c = cmp_ll(a->s.n, b->s.n);
	if (!c)
		c = cmp_ll(a->s.k, b->s.k);
	return c ? c : (a->at > b->at) - (a->at < b->at);
}

struct value_at {
	long long v;
	const char *s;
	size_t at;
};

static int cmp_value_at(const void *pa, const void *pb)
{
	const struct value_at *a = pa, *b = pb;
	int c = a->s ? strcmp(a->s, b->s) : cmp_ll(a->v, b->v);

	return c ? c : (a->at > b->at) - (a->at < b->at);
}

/* shapes written as a preset's name (shape_presets) */
static int shape_preset(struct param_value *out, const struct param_def *def, const struct ynode *node,
			struct diag_list *d, const char *file)
{
	const char *names[8], *best;
	size_t np = 0;

	for (size_t i = 0; shape_presets[i].name; i++) {
		names[np++] = shape_presets[i].name;
		if (!strcmp(shape_presets[i].name, node->value)) {
			out->str = xstrdup(node->value);
			out->n = shape_presets[i].n;
			out->shapes = xcalloc(out->n, sizeof(*out->shapes));
			memcpy(out->shapes, shape_presets[i].shapes, out->n * sizeof(*out->shapes));
			return 0;
		}
	}
	names[np] = NULL;
	if ((best = suggest_closest(node->value, names)))
		ynode_diag(d, file, node, "unknown shape preset '%s' for '%s' (did you mean '%s'?)", node->value,
		    def->name, best);
	else
		ynode_diag(d, file, node, "'%s' must be a preset (llama70b) or a list of [M, N, K]; got '%s'",
		    def->name, node->value);
	return -1;
}

static int parse_shapes(struct param_value *out, const struct param_def *def, const struct ynode *node,
			struct diag_list *d, const char *file)
{
	const struct ynode **src;
	int bad = 0;

	if (node->type == YNODE_SCALAR && !ynode_is_null(node))
		return shape_preset(out, def, node, d, file);
	if (node->type != YNODE_SEQ || node->n == 0) {
		ynode_diag(d, file, node, "'%s' must be a preset (llama70b) or a non-empty list of [M, N, K], got %s", def->name,
		    node->type == YNODE_SEQ ? "an empty list" : ynode_type_name(node));
		return -1;
	}
	src = NULL;
	out->shapes = xcalloc(node->n, sizeof(*out->shapes));
	for (size_t i = 0; i < node->n; i++) {
		const struct ynode *it = node->items[i];
		long long dims[3];
		int ok = it->type == YNODE_SEQ && it->n == 3;

		for (size_t k = 0; ok && k < 3; k++)
			ok = is_plain_scalar(it->items[k]) && parse_int_text(&dims[k], it->items[k]->value) == 0 &&
			     dims[k] >= 1 && dims[k] <= GEMM_DIM_MAX;
		if (!ok) {
			ynode_diag(d, file, it, "'%s' entry %zu must be [M, N, K] with three integers from 1 to %lld",
			    def->name, i + 1, GEMM_DIM_MAX);
			bad = 1;
			continue;
		}
		out->shapes[out->n].m = dims[0];
		out->shapes[out->n].n = dims[1];
		out->shapes[out->n].k = dims[2];
		src = xrealloc(src, (out->n + 1) * sizeof(*src));
		src[out->n++] = it;
	}
	/* a shape listed twice: found by sorting (n log n), refused at each later entry, in list order */
	{
		struct shape_at *ix = xcalloc(out->n ? out->n : 1, sizeof(*ix));
		unsigned char *dup = xcalloc(out->n ? out->n : 1, 1);
		size_t k = 0;

		for (size_t i = 0; i < out->n; i++) {
			ix[i].s = out->shapes[i];
			ix[i].at = i;
		}
		qsort(ix, out->n, sizeof(*ix), cmp_shape_at);
		for (size_t i = 1; i < out->n; i++)
			if (ix[i - 1].s.m == ix[i].s.m && ix[i - 1].s.n == ix[i].s.n && ix[i - 1].s.k == ix[i].s.k)
				dup[ix[i].at] = 1; /* sorted by (shape, position): the first of a run is kept */
		for (size_t i = 0; i < out->n; i++) {
			if (dup[i]) {
				ynode_diag(d, file, src[i], "'%s' lists %lldx%lldx%lld twice", def->name, out->shapes[i].m,
				    out->shapes[i].n, out->shapes[i].k);
				bad = 1;
				continue;
			}
			out->shapes[k++] = out->shapes[i];
		}
		out->n = k;
		free(ix);
		free(dup);
	}
	free(src);
	return bad ? -1 : 0;
}

/* The entries of list node into *items and *n: node itself where one value may stand for the list ("ddp" reads as
 * [ddp]; one[0] holds it). 0, or -1 with a diagnostic when it is no list or an empty one where that is refused. */
static int list_entries(struct ynode *const **items, size_t *n, const struct ynode **one, const struct param_def *def,
			const struct ynode *node, struct diag_list *d, const char *file)
{
	if (node->type == YNODE_SCALAR && !ynode_is_null(node) && (def->flags & PARAM_SCALAR_OK)) {
		one[0] = node;
		*items = (struct ynode *const *)one;
		*n = 1;
		return 0;
	}
	if (node->type != YNODE_SEQ) {
		const char *eg = def->type == PARAM_ENUM_LIST ? def->choices[0] :
				 def->type == PARAM_BOOL_LIST ? "true" : def->type == PARAM_SIZE_LIST ? "64MiB" : "1";

		ynode_diag(d, file, node, "'%s' must be a list, e.g. [%s]; got %s", def->name, eg,
		    ynode_is_null(node) ? "null" : node->type == YNODE_SCALAR ? "a single value" : ynode_type_name(node));
		return -1;
	}
	*items = node->items;
	*n = node->n;
	if (*n == 0 && !(def->flags & PARAM_EMPTY_OK)) {
		ynode_diag(d, file, node, "'%s' must not be empty", def->name);
		return -1;
	}
	return 0;
}

/* An enum list's entry: a choice, or where the list allows it a plug-in entry (plugin.h). */
static int list_enum_entry(struct param_value *out, const struct ynode **src, const struct param_def *def,
			   const struct ynode *it, struct diag_list *d, const char *file, const char *label)
{
	char *s = NULL;

	if (it->type == YNODE_MAP && (def->flags & PARAM_PLUGIN_OK)) {
		struct plugin_slot slot = { def->name, def->choices, !!(def->flags & PARAM_PLUGIN_NATIVE),
					    !!(def->flags & PARAM_PLUGIN_PASSES) };
		json_t *pl;

		if (plugin_parse(&pl, &s, &slot, it, d, file) < 0)
			return -1;
		out->plugins[out->n] = pl;
	} else if (one_enum(&s, def, it, d, file, label) < 0) {
		return -1;
	}
	src[out->n] = it;
	out->sv[out->n++] = s;
	return 0;
}

/* Entry i of a list, appended to out (its node to src), or -1 with a diagnostic. */
static int list_entry(struct param_value *out, const struct ynode **src, const struct param_def *def,
		      const struct ynode *it, size_t i, struct diag_list *d, const char *file)
{
	char label[96];
	long long v = 0;
	int rc = 0;

	snprintf(label, sizeof(label), "'%s' entry %zu", def->name, i + 1);
	switch (def->type) {
	case PARAM_ENUM_LIST:
		return list_enum_entry(out, src, def, it, d, file, label);
	case PARAM_BOOL_LIST:
		rc = one_bool(&v, it, d, file, label);
		break;
	case PARAM_INT_LIST:
		rc = one_int(&v, def, it, d, file, label);
		break;
	case PARAM_SIZE_LIST:
		rc = one_quantity(&v, &size_quantity, def, it, d, file, label);
		break;
	default:
		break;
	}
	if (rc < 0)
		return -1;
	src[out->n] = it;
	out->iv[out->n++] = v;
	return 0;
}

/* A value listed twice: found by sorting (n log n), refused at each later entry, in list order, and dropped from
 * out. 1 when there was one, else 0. */
static int list_drop_repeats(struct param_value *out, const struct param_def *def, const struct ynode **src,
			     struct diag_list *d, const char *file)
{
	struct value_at *ix = xcalloc(out->n ? out->n : 1, sizeof(*ix));
	unsigned char *dup = xcalloc(out->n ? out->n : 1, 1);
	size_t k = 0;
	int bad = 0;

	for (size_t i = 0; i < out->n; i++) {
		ix[i].s = out->sv ? out->sv[i] : NULL;
		ix[i].v = out->sv ? 0 : out->iv[i];
		ix[i].at = i;
	}
	qsort(ix, out->n, sizeof(*ix), cmp_value_at);
	for (size_t i = 1; i < out->n; i++)
		if (!(ix[i - 1].s ? strcmp(ix[i - 1].s, ix[i].s) : ix[i - 1].v != ix[i].v))
			dup[ix[i].at] = 1;
	for (size_t i = 0; i < out->n; i++) {
		if (dup[i]) {
			if (out->sv) {
				ynode_diag(d, file, src[i], "'%s' lists '%s' twice", def->name, out->sv[i]);
				free(out->sv[i]);
				if (out->plugins)
					json_decref(out->plugins[i]);
			} else {
				ynode_diag(d, file, src[i], "'%s' lists '%s' twice", def->name, src[i]->value);
			}
			bad = 1;
			continue;
		}
		if (out->sv) {
			if (out->plugins)
				out->plugins[k] = out->plugins[i];
			out->sv[k++] = out->sv[i];
		} else
			out->iv[k++] = out->iv[i];
	}
	out->n = k;
	free(ix);
	free(dup);
	return bad;
}

static int parse_list(struct param_value *out, const struct param_def *def, const struct ynode *node,
		      struct diag_list *d, const char *file)
{
	const struct ynode *one[1];
	struct ynode *const *items;
	const struct ynode **src;
	size_t n;
	int bad = 0;

	if (list_entries(&items, &n, one, def, node, d, file) < 0)
		return -1;
	if (def->type == PARAM_ENUM_LIST) {
		out->sv = xcalloc(n ? n : 1, sizeof(*out->sv));
		if (def->flags & PARAM_PLUGIN_OK)
			out->plugins = xcalloc(n ? n : 1, sizeof(*out->plugins));
	} else
		out->iv = xcalloc(n, sizeof(*out->iv));
	src = xcalloc(n ? n : 1, sizeof(*src));
	for (size_t i = 0; i < n; i++)
		if (list_entry(out, src, def, items[i], i, d, file) < 0)
			bad = 1;
	if (list_drop_repeats(out, def, src, d, file))
		bad = 1;
	free(src);
	return bad ? -1 : 0;
}

int param_parse(struct param_value *out, const struct param_def *def, const struct ynode *node,
		struct diag_list *d, const char *file)
{
	char label[80];
	int rc = 0;

	memset(out, 0, sizeof(*out));
	out->def = def;
	out->line = node->line;
	out->col = node->col;
	snprintf(label, sizeof(label), "'%s'", def->name);

	if ((def->flags & PARAM_AUTO) && is_plain_scalar(node) && !strcmp(node->value, "auto")) {
		out->is_auto = 1;
		return 0;
	}
	switch (def->type) {
	case PARAM_BOOL:
		rc = one_bool(&out->i, node, d, file, label);
		break;
	case PARAM_INT:
		rc = one_int(&out->i, def, node, d, file, label);
		break;
	case PARAM_NUMBER:
		rc = one_number(&out->num, def, node, d, file, label);
		break;
	case PARAM_SIZE:
		rc = one_quantity(&out->i, &size_quantity, def, node, d, file, label);
		break;
	case PARAM_DURATION:
		rc = one_quantity(&out->i, &duration_quantity, def, node, d, file, label);
		break;
	case PARAM_ENUM:
		rc = one_enum(&out->str, def, node, d, file, label);
		break;
	case PARAM_STRING:
		rc = one_string(&out->str, node, d, file, label);
		break;
	case PARAM_ENUM_LIST:
	case PARAM_INT_LIST:
	case PARAM_BOOL_LIST:
	case PARAM_SIZE_LIST:
		rc = parse_list(out, def, node, d, file);
		break;
	case PARAM_SHAPES:
		rc = parse_shapes(out, def, node, d, file);
		break;
	}
	return rc < 0 ? BENCH_E_MANIFEST : 0;
}

int param_default(struct param_value *out, const struct param_def *def, const char *vendor)
{
	struct diag_list d = DIAG_LIST_INIT;
	struct ynode *root = NULL;
	char *doc = xstrfmt("v: %s\n", param_default_text(def, vendor));
	int err;

	err = ynode_load(&root, &d, "<default>", doc, strlen(doc));
	if (!err)
		err = param_parse(out, def, root->pairs[0].value, &d, "<default>");
	if (err)
		err = bench_error_set(BENCH_E_MANIFEST, "built-in default of '%s' is invalid", def->name);
	out->line = out->col = 0;
	ynode_free(root);
	diag_list_release(&d);
	free(doc);
	return err;
}

void param_value_release(struct param_value *v)
{
	free(v->str);
	free(v->iv);
	for (size_t i = 0; v->sv && i < v->n; i++)
		free(v->sv[i]);
	for (size_t i = 0; v->plugins && i < v->n; i++)
		json_decref(v->plugins[i]);
	free(v->plugins);
	free(v->sv);
	free(v->shapes);
	memset(v, 0, sizeof(*v));
}

json_t *param_value_json(const struct param_value *v)
{
	json_t *a;

	if (v->is_auto)
		return json_string("auto");
	switch (v->def->type) {
	case PARAM_BOOL:
		return json_boolean(v->i);
	case PARAM_INT:
	case PARAM_SIZE:
		return json_integer(v->i);
	case PARAM_DURATION:
		return json_real((double)v->i / 1e6);
	case PARAM_NUMBER:
		return json_real(v->num);
	case PARAM_ENUM:
	case PARAM_STRING:
		return json_string(v->str);
	case PARAM_ENUM_LIST:
		a = json_array();
		for (size_t i = 0; i < v->n; i++)
			json_array_append_new(a, v->plugins && v->plugins[i] ? json_deep_copy(v->plugins[i])
									 : json_string(v->sv[i]));
		return a;
	case PARAM_BOOL_LIST:
		a = json_array();
		for (size_t i = 0; i < v->n; i++)
			json_array_append_new(a, json_boolean(v->iv[i]));
		return a;
	case PARAM_INT_LIST:
	case PARAM_SIZE_LIST:
		a = json_array();
		for (size_t i = 0; i < v->n; i++)
			json_array_append_new(a, json_integer(v->iv[i]));
		return a;
	case PARAM_SHAPES:
		if (v->str)
			return json_string(v->str);
		a = json_array();
		for (size_t i = 0; i < v->n; i++)
			json_array_append_new(a, json_pack("[III]", v->shapes[i].m, v->shapes[i].n, v->shapes[i].k));
		return a;
	}
	return json_null();
}

char *param_value_text(const struct param_value *v)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[64];

	if (v->is_auto)
		return xstrdup("auto");
	switch (v->def->type) {
	case PARAM_BOOL:
		strbuf_addstr(&sb, v->i ? "true" : "false");
		break;
	case PARAM_INT:
		strbuf_addf(&sb, "%lld", v->i);
		break;
	case PARAM_SIZE:
		units_format_size(buf, sizeof(buf), (uint64_t)v->i);
		strbuf_addstr(&sb, buf);
		break;
	case PARAM_DURATION:
		units_format_duration(buf, sizeof(buf), (uint64_t)v->i);
		strbuf_addstr(&sb, buf);
		break;
	case PARAM_NUMBER:
		strbuf_addf(&sb, "%g", v->num);
		break;
	case PARAM_ENUM:
	case PARAM_STRING:
		strbuf_addstr(&sb, v->str);
		break;
	case PARAM_ENUM_LIST:
	case PARAM_BOOL_LIST:
	case PARAM_INT_LIST:
	case PARAM_SIZE_LIST:
		strbuf_addch(&sb, '[');
		for (size_t i = 0; i < v->n; i++) {
			if (i)
				strbuf_addstr(&sb, ", ");
			if (v->def->type == PARAM_ENUM_LIST && v->plugins && v->plugins[i])
				strbuf_addf(&sb, "{plugin: %s}", v->sv[i]);
			else if (v->def->type == PARAM_ENUM_LIST)
				strbuf_addstr(&sb, v->sv[i]);
			else if (v->def->type == PARAM_BOOL_LIST)
				strbuf_addstr(&sb, v->iv[i] ? "true" : "false");
			else if (v->def->type == PARAM_SIZE_LIST) {
				units_format_size(buf, sizeof(buf), (uint64_t)v->iv[i]);
				strbuf_addstr(&sb, buf);
			} else
				strbuf_addf(&sb, "%lld", v->iv[i]);
		}
		strbuf_addch(&sb, ']');
		break;
	case PARAM_SHAPES:
		if (v->str) {
			strbuf_addstr(&sb, v->str);
			break;
		}
		strbuf_addch(&sb, '[');
		for (size_t i = 0; i < v->n; i++)
			strbuf_addf(&sb, "%s[%lld, %lld, %lld]", i ? ", " : "", v->shapes[i].m, v->shapes[i].n,
				    v->shapes[i].k);
		strbuf_addch(&sb, ']');
		break;
	}
	return strbuf_detach(&sb);
}
