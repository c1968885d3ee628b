/* SPDX-License-Identifier: Apache-2.0 */
/* ccllog.c — NCCL/RCCL debug-log lines to facts, and the variables that did not take effect. The formats are
 * those of NCCL 2.2x's INFO lines (init.cc, tuning.cc, enqueue.cc, transport/{p2p,shm,net,nvls}.cc,
 * misc/param.cc) and RCCL's (the same lines; "RCCL version"). */
#include "ccllog.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static json_t *obj(json_t *eff, const char *k)
{
	json_t *o = json_object_get(eff, k);

	if (!json_is_object(o)) {
		o = json_object();
		json_object_set_new(eff, k, o);
	}
	return o;
}

static json_t *arr(json_t *eff, const char *k)
{
	json_t *a = json_object_get(eff, k);

	if (!json_is_array(a)) {
		a = json_array();
		json_object_set_new(eff, k, a);
	}
	return a;
}

/* a copy of [s, e) without surrounding blanks and, when dot, one trailing '.' */
static json_t *trimmed(const char *s, const char *e, int dot)
{
	while (s < e && isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	if (dot && e > s && e[-1] == '.')
		e--;
	return json_stringn(s, (size_t)(e - s));
}

static void version_line(json_t *eff, const char *line, const char *e, const char *at, const char *lib)
{
	const char *v = at + strlen("NCCL version");

	(void)line;
	while (v < e && (*v == ' ' || *v == ':'))
		v++;
	if (v < e && isdigit((unsigned char)*v)) {
		const char *w = v;

		while (w < e && !isspace((unsigned char)*w))
			w++;
		json_object_set_new(eff, "library", json_string(lib));
		json_object_set_new(eff, "version", json_stringn(v, (size_t)(w - v)));
	}
}

static void env_line(json_t *eff, const char *msg, const char *e, const char *at)
{
	const char *n = at;

	while (n > msg && !isspace((unsigned char)n[-1]))
		n--;
	if (at - n < 2 || (strncmp(n, "NCCL_", 5) && strncmp(n, "RCCL_", 5)))
		return;
	{
		char name[96];

		snprintf(name, sizeof(name), "%.*s", (int)(at - n), n);
		json_object_set_new(obj(eff, "env"), name, trimmed(at + strlen(" set by environment to "), e, 1));
	}
}

/* "Invalid value %s for %s, using default %lld." */
static void invalid_line(json_t *eff, const char *msg, const char *e)
{
	const char *v = msg + strlen("Invalid value "), *f = strstr(v, " for "), *c;
	char name[96];

	if (!f || f > e || !(c = strstr(f + 5, ", using default")) || c > e)
		return;
	snprintf(name, sizeof(name), "%.*s", (int)(c - f - 5), f + 5);
	json_object_set_new(obj(eff, "invalid"), name, json_stringn(v, (size_t)(f - v)));
}

static void transport_line(json_t *eff, const char *msg, const char *e, const char *via)
{
	int a, b, x, y;
	char key[160];
	json_t *t = obj(eff, "transports"), *peers = arr(eff, "peers"), *have;
	json_t *v = trimmed(via + 5, e, 0);
	const char *arrow = strstr(msg, " : ");

	have = json_object_get(t, json_string_value(v));
	json_object_set_new(t, json_string_value(v), json_integer(have ? json_integer_value(have) + 1 : 1));
	if (arrow && arrow < via && sscanf(arrow, " : %d[%d] -> %d[%d]", &a, &x, &b, &y) == 4) {
		size_t i;
		json_t *p;
		int seen = 0;

		snprintf(key, sizeof(key), "%d -> %d via %s", a, b, json_string_value(v));
		json_array_foreach(peers, i, p)
			seen |= !strcmp(json_string_value(p), key);
		if (!seen && json_array_size(peers) < CCLLOG_MAX_PEERS)
			json_array_append_new(peers, json_string(key));
	}
	json_decref(v);
}

static void coll_add(json_t *eff, const char *op, long long bytes, const char *algo, const char *proto, int channels)
{
	json_t *colls = arr(eff, "collectives"), *c;
	size_t i;

	json_array_foreach(colls, i, c)
		if (!strcmp(json_string_value(json_object_get(c, "op")), op) &&
		    json_integer_value(json_object_get(c, "bytes")) == bytes &&
		    !strcmp(json_string_value(json_object_get(c, "algorithm")), algo) &&
		    !strcmp(json_string_value(json_object_get(c, "protocol")) ? json_string_value(json_object_get(c, "protocol")) : "",
			    proto ? proto : "") &&
		    json_integer_value(json_object_get(c, "channels")) == channels) {
			json_object_set_new(c, "calls", json_integer(json_integer_value(json_object_get(c, "calls")) + 1));
			return;
		}
	json_array_append_new(colls, json_pack("{s:s, s:I, s:s, s:o, s:i, s:i}", "op", op, "bytes", (json_int_t)bytes,
					       "algorithm", algo, "protocol", proto ? json_string(proto) : json_null(),
					       "channels", channels, "calls", 1));
}

/* "%s: %ld Bytes -> Algo %s proto %s channel{Lo..Hi}={%d..%d}" (RCCL and later NCCL: " comm %p" after it);
 * "%s [Symmetric]: %ld Bytes -> Kernel %s nchannels %d nthreads %d nWorks %d" */
static void tuning_line(json_t *eff, const char *msg)
{
	char op[64], algo[64], proto[32];
	long long bytes;
	int lo, hi, nc;

	if (sscanf(msg, "%63[^:]: %lld Bytes -> Algo %63s proto %31s channel{Lo..Hi}={%d..%d}", op, &bytes, algo, proto,
		   &lo, &hi) == 6)
		coll_add(eff, op, bytes, algo, proto, hi - lo + 1);
	else if (sscanf(msg, "%63[^:]: %lld Bytes -> Kernel %63s nchannels %d", op, &bytes, algo, &nc) == 4)
		coll_add(eff, op, bytes, algo, NULL, nc);
}

static void line(json_t *eff, const char *s, const char *e)
{
	const char *msg = s, *p;
	char buf[1024];

	/* "host:pid:tid [dev] NCCL INFO <message>"; the version line at NCCL_DEBUG=VERSION has no prefix */
	if ((p = strstr(s, "NCCL INFO ")) && p < e)
		msg = p + strlen("NCCL INFO ");
	snprintf(buf, sizeof(buf), "%.*s", (int)(e - msg), msg); /* NUL-terminated for sscanf and strstr */
	msg = buf;
	e = buf + strlen(buf);
	if ((p = strstr(msg, "NCCL version ")))
		version_line(eff, msg, e, p, "nccl");
	else if ((p = strstr(msg, "RCCL version")))
		version_line(eff, msg, e, p, "rccl");
	else if ((p = strstr(msg, " set by environment to ")))
		env_line(eff, msg, e, p);
	else if (!strncmp(msg, "Invalid value ", 14))
		invalid_line(eff, msg, e);
	else if ((p = strstr(msg, " coll channels, "))) {
		int v[5];
		const char *n = p;

		while (n > msg && isdigit((unsigned char)n[-1]))
			n--;
		if (sscanf(n, "%d coll channels, %d collnet channels, %d nvls channels, %d p2p channels, %d p2p channels "
			   "per peer", &v[0], &v[1], &v[2], &v[3], &v[4]) == 5)
			json_object_set_new(eff, "channels", json_pack("{s:i, s:i, s:i, s:i, s:i}", "coll", v[0], "collnet",
								       v[1], "nvls", v[2], "p2p", v[3], "p2p_per_peer",
								       v[4]));
	} else if ((p = strstr(msg, " nRanks ")) && strstr(msg, " nNodes ")) {
		int nr, nn;

		if (sscanf(p, " nRanks %d nNodes %d", &nr, &nn) == 2) {
			json_object_set_new(eff, "nranks", json_integer(nr));
			json_object_set_new(eff, "nnodes", json_integer(nn));
		}
	} else if (!strncmp(msg, "NVLS multicast support is ", 26)) {
		int nc = 0;
		const char *c = strstr(msg, "NVLS_NCHANNELS ");

		if (c)
			sscanf(c, "NVLS_NCHANNELS %d", &nc);
		json_object_set_new(eff, "nvls", json_pack("{s:b, s:i}", "available", strncmp(msg + 26, "not ", 4) != 0,
							   "channels", nc));
	} else if (!strncmp(msg, "Using network ", 14)) {
		json_object_set_new(eff, "network", trimmed(msg + 14, e, 0));
	} else if (!strncmp(msg, "NET/", 4) && (p = strstr(msg, " : Using"))) {
		json_object_set_new(eff, "net_devices", trimmed(msg, e, 0));
	} else if ((p = strstr(msg, "disabling CollNet"))) {
		json_t *why = trimmed(msg, e, 0);

		json_object_set_new(eff, "collnet", json_sprintf("disabled: %s", json_string_value(why)));
		json_decref(why);
	} else if (!strncmp(msg, "Channel ", 8) && (p = strstr(msg, " via "))) {
		transport_line(eff, msg, e, p);
	} else if (strstr(msg, " Bytes -> ")) {
		tuning_line(eff, msg);
	}
}

void ccllog_parse_into(json_t *eff, const char *text, size_t len)
{
	const char *s = text, *end = text + len;
	json_int_t n = json_integer_value(json_object_get(eff, "lines"));

	while (s < end) {
		const char *e = memchr(s, '\n', (size_t)(end - s));

		if (!e)
			e = end;
		if (e > s) {
			line(eff, s, e);
			n++;
		}
		s = e + 1;
	}
	json_object_set_new(eff, "lines", json_integer(n));
}

/* --- which variables took effect ----------------------------------------------------------------------------- */

/* lowercase letters and digits only: "COLLNET_DIRECT", "CollNetDirect" and "collnet_direct" are one name */
static void norm(char *out, size_t cap, const char *s, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n && s[i] && k + 1 < cap; i++)
		if (isalnum((unsigned char)s[i]))
			out[k++] = (char)tolower((unsigned char)s[i]);
	out[k] = '\0';
}

/* Whether name is allowed by an NCCL_ALGO / NCCL_PROTO value for the function op: "Ring,Tree", "^Tree",
 * "allreduce:tree,ring;allgather:ring". -1 when the value says nothing about op. */
static int list_allows(const char *value, const char *op, const char *name)
{
	char want[64], fn[64], item[64];
	const char *s = value;
	int applies = 0;

	norm(want, sizeof(want), name, strlen(name));
	norm(fn, sizeof(fn), op, strcspn(op, " ["));
	while (*s) {
		size_t seg = strcspn(s, ";");
		const char *colon = memchr(s, ':', seg), *l = s, *le = s + seg;
		int neg, hit = 0;

		if (colon) {
			char f[64];

			norm(f, sizeof(f), s, (size_t)(colon - s));
			if (strcmp(f, fn)) {
				s += seg + (s[seg] == ';');
				continue;
			}
			l = colon + 1;
		}
		applies = 1;
		while (l < le && isspace((unsigned char)*l))
			l++;
		neg = l < le && *l == '^';
		l += neg;
		while (l < le) {
			size_t k = strcspn(l, ",;");

			if (l + k > le)
				k = (size_t)(le - l);
			norm(item, sizeof(item), l, k);
			hit |= !strcmp(item, want);
			l += k + (l + k < le);
		}
		return neg ? !hit : hit;
	}
	return applies ? 1 : -1;
}

static void miss(json_t *out, const char *var, const char *asked, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void miss(json_t *out, const char *var, const char *asked, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_array_append_new(out, json_pack("{s:s, s:s, s:s}", "variable", var, "asked", asked, "effective", buf));
}

static int truthy(const char *v)
{
	return atoi(v) != 0;
}

static void check_list(json_t *out, const json_t *eff, const char *var, const char *value, const char *field)
{
	const json_t *c;
	size_t i;
	char got[512] = "";
	size_t at = 0;
	int bad = 0;

	json_array_foreach(json_object_get(eff, "collectives"), i, c) {
		const char *op = json_string_value(json_object_get(c, "op")), *v = json_string_value(json_object_get(c, field));

		if (!op || !v)
			continue;
		if (list_allows(value, op, v) == 0) {
			bad = 1;
			if (at < sizeof(got))
				at += (size_t)snprintf(got + at, sizeof(got) - at, "%s%s %lld B ran %s", at ? "; " : "", op,
						       (long long)json_integer_value(json_object_get(c, "bytes")), v);
		}
	}
	if (bad)
		miss(out, var, value, "%s", got);
}

json_t *ccllog_not_effective(const json_t *eff, const char *const *env, size_t n)
{
	json_t *out = json_array();
	const json_t *ch = json_object_get(eff, "channels"), *tr = json_object_get(eff, "transports");
	const json_t *inv = json_object_get(eff, "invalid"), *nvls = json_object_get(eff, "nvls");
	int coll = json_is_integer(json_object_get(ch, "coll")) ? (int)json_integer_value(json_object_get(ch, "coll")) : -1;
	const char *net = json_string_value(json_object_get(eff, "network"));

	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(env[i], '='), *v;
		char name[96];

		if (!eq || (strncmp(env[i], "NCCL_", 5) && strncmp(env[i], "RCCL_", 5)))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(eq - env[i]), env[i]);
		v = eq + 1;
		if (json_object_get(inv, name)) {
			miss(out, name, v, "NCCL called the value invalid and used its default");
			continue;
		}
		if (!strcmp(name, "NCCL_ALGO"))
			check_list(out, eff, name, v, "algorithm");
		else if (!strcmp(name, "NCCL_PROTO"))
			check_list(out, eff, name, v, "protocol");
		else if ((!strcmp(name, "NCCL_MIN_NCHANNELS") || !strcmp(name, "NCCL_MIN_CTAS")) && coll >= 0 &&
			 coll < atoi(v))
			miss(out, name, v, "%d coll channels", coll);
		else if ((!strcmp(name, "NCCL_MAX_NCHANNELS") || !strcmp(name, "NCCL_MAX_CTAS")) && coll >= 0 &&
			 atoi(v) > 0 && coll > atoi(v))
			miss(out, name, v, "%d coll channels", coll);
		else if (!strcmp(name, "NCCL_NVLS_ENABLE") && nvls) {
			int on = json_is_true(json_object_get(nvls, "available")) &&
				 (!ch || json_integer_value(json_object_get(ch, "nvls")) > 0);

			if (truthy(v) != on)
				miss(out, name, v, "NVLS %s (%lld nvls channels)", on ? "used" : "not used",
				     (long long)(ch ? json_integer_value(json_object_get(ch, "nvls")) : 0));
		} else if (!strcmp(name, "NCCL_COLLNET_ENABLE") && truthy(v) && json_object_get(eff, "collnet"))
			miss(out, name, v, "%s", json_string_value(json_object_get(eff, "collnet")));
		else if (!strcmp(name, "NCCL_P2P_DISABLE") || !strcmp(name, "NCCL_SHM_DISABLE")) {
			const char *pre = name[5] == 'P' ? "P2P/" : "SHM/", *k;
			const json_t *c;

			if (!truthy(v))
				continue;
			json_object_foreach((json_t *)tr, k, c)
				if (!strncmp(k, pre, 4)) {
					miss(out, name, v, "%lld connections via %s", (long long)json_integer_value(c), k);
					break;
				}
		} else if (!strcmp(name, "NCCL_NET") && net && strcasecmp(net, v))
			miss(out, name, v, "network %s", net);
		else if (!strcmp(name, "NCCL_IB_DISABLE") && truthy(v) && net && !strcasecmp(net, "IB"))
			miss(out, name, v, "network IB");
	}
	return out;
}

char *ccllog_read(const char *path, long from, size_t *len, long *end)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long size;

	*len = 0;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || size <= from || fseek(f, from, SEEK_SET) != 0)
		goto cleanup;
	buf = malloc((size_t)(size - from) + 1);
	if (!buf)
		goto cleanup;
	*len = fread(buf, 1, (size_t)(size - from), f);
	/* a line still being written stays for the next read */
	while (*len && buf[*len - 1] != '\n')
		(*len)--;
	buf[*len] = '\0';
	*end = from + (long)*len;
cleanup:
	fclose(f);
	return buf;
}
