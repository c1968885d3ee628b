/* SPDX-License-Identifier: Apache-2.0 */
/* fabric.c — network interfaces and RDMA devices from sysfs, and nvidia-smi's topology matrix. */
#include "fabric.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fs.h"
#include "core/strbuf.h"

/* Where sysfs is read from: this machine's /sys (dump NULL), or a dump another node wrote (fabric_parse_dump):
 * vals holds a file's first line by path, links a symbolic link's target, dirs the directories it named. A
 * dump's paths are keys, never opened. */
struct src {
	json_t *vals, *links, *dirs;
};

static char *sysfs(const struct src *sr, const char *fmt, const char *a, const char *b)
{
	const char *root = sr ? NULL : getenv("BENCH_SYSFS_ROOT");
	char *rel = xstrfmt(fmt, a, b ? b : ""), *p = xstrfmt("%s%s", root ? root : "", rel);

	free(rel);
	return p;
}

/* the first line of a sysfs file, trimmed; NULL when unreadable or empty */
static char *value(const struct src *sr, const char *path)
{
	char *buf = NULL;
	size_t len = 0;

	if (sr) {
		const char *v = json_string_value(json_object_get(sr->vals, path));

		if (!v)
			return NULL;
		buf = xstrdup(v);
	} else if (fs_read_file(&buf, &len, path, 4096) < 0) {
		return NULL;
	}
	buf[strcspn(buf, "\n")] = '\0';
	len = strlen(buf);
	while (len && isspace((unsigned char)buf[len - 1]))
		buf[--len] = '\0';
	if (!len) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void set_str(const struct src *sr, json_t *o, const char *k, const char *path)
{
	char *v = value(sr, path);

	if (v)
		json_object_set_new(o, k, json_string(v));
	free(v);
}

static void set_int(const struct src *sr, json_t *o, const char *k, const char *path)
{
	char *v = value(sr, path), *end;
	long long n;

	if (v) {
		n = strtoll(v, &end, 10);
		if (end != v && !*end)
			json_object_set_new(o, k, json_integer(n));
	}
	free(v);
}

/* a symbolic link's target; NULL when path is no link */
static char *link_target(const struct src *sr, const char *path)
{
	char buf[PATH_MAX];
	ssize_t n;

	if (sr) {
		const char *v = json_string_value(json_object_get(sr->links, path));

		return v && *v ? xstrdup(v) : NULL;
	}
	if ((n = readlink(path, buf, sizeof(buf) - 1)) <= 0)
		return NULL;
	buf[n] = '\0';
	return xstrdup(buf);
}

/* the last component of a symbolic link's target ("0000:3b:00.0", "mlx5_core"); NULL when path is no link */
static char *link_base(const struct src *sr, const char *path)
{
	char *t = link_target(sr, path), *b, *r;

	if (!t)
		return NULL;
	b = strrchr(t, '/');
	r = xstrdup(b ? b + 1 : t);
	free(t);
	return r;
}

static int is_dir(const struct src *sr, const char *path)
{
	struct stat st;

	if (sr)
		return json_object_get(sr->dirs, path) != NULL;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* a dump's entries of dir: the next component of every path below it, once each, sorted */
static char **dump_entries(const struct src *sr, const char *dir)
{
	json_t *seen = json_object(), *maps[3] = { sr->vals, sr->links, sr->dirs }, *v;
	size_t dl = strlen(dir), n = 0;
	const char *k;
	char **out = NULL;

	for (int i = 0; i < 3; i++)
		json_object_foreach(maps[i], k, v)
			if (!strncmp(k, dir, dl) && k[dl] == '/' && k[dl + 1]) {
				char *c = xstrndup(k + dl + 1, strcspn(k + dl + 1, "/"));

				json_object_set_new(seen, c, json_true());
				free(c);
			}
	if (json_object_size(seen)) {
		out = calloc(json_object_size(seen) + 1, sizeof(*out));
		json_object_foreach(seen, k, v)
			if (out)
				out[n++] = xstrdup(k);
		if (out)
			qsort(out, n, sizeof(*out), cmp_str);
	}
	json_decref(seen);
	return out;
}

/* the entries of a directory but . and .., sorted; NULL-terminated (caller frees each and the array) */
static char **entries(const struct src *sr, const char *dir)
{
	DIR *d;
	struct dirent *e;
	char **v = NULL;
	size_t n = 0;

	if (sr)
		return dump_entries(sr, dir);
	if (!(d = opendir(dir)))
		return NULL;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			char **nv = realloc(v, (n + 2) * sizeof(*v));

			if (!nv)
				break;
			v = nv;
			v[n++] = xstrdup(e->d_name);
		}
	closedir(d);
	if (v) {
		qsort(v, n, sizeof(*v), cmp_str);
		v[n] = NULL;
	}
	return v;
}

static void entries_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static void pci(const struct src *sr, json_t *o, const char *base)
{
	char *p = xstrfmt("%s/device", base), *q;
	char *dev = link_base(sr, p);

	if (dev) {
		json_object_set_new(o, "pci_device", json_string(dev));
		free(dev);
		q = xstrfmt("%s/device/numa_node", base);
		set_int(sr, o, "numa_node", q);
		free(q);
		q = xstrfmt("%s/device/driver", base);
		if ((dev = link_base(sr, q)))
			json_object_set_new(o, "driver", json_string(dev));
		free(dev);
		free(q);
	}
	free(p);
}

static json_t *net_one(const struct src *sr, const char *name)
{
	json_t *o = json_object();
	char *base = sysfs(sr, "/sys/class/net/%s%s", name, NULL), *p, *t, *lnk;
	const char *kind = "physical";

	if ((t = link_target(sr, base)) && strstr(t, "/virtual/"))
		kind = "virtual";
	free(t);
	p = xstrfmt("%s/bridge", base);
	if (is_dir(sr, p))
		kind = "bridge";
	free(p);
	json_object_set_new(o, "kind", json_string(kind));
	p = xstrfmt("%s/type", base);
	if ((t = value(sr, p))) {
		json_object_set_new(o, "type", !strcmp(t, "1") ? json_string("ether") : !strcmp(t, "32") ? json_string("infiniband")
												   : json_string(t));
		free(t);
	}
	free(p);
#define FIELD(setter, key, file) (p = xstrfmt("%s/" file, base), setter(sr, o, key, p), free(p))
	FIELD(set_str, "operstate", "operstate");
	FIELD(set_int, "mtu", "mtu");
	FIELD(set_int, "speed_mbps", "speed");
#undef FIELD
	pci(sr, o, base);
	if (!strcmp(kind, "bridge")) {
		char **m;
		json_t *a = json_array();

		p = xstrfmt("%s/brif", base);
		m = entries(sr, p);
		for (size_t i = 0; m && m[i]; i++)
			json_array_append_new(a, json_string(m[i]));
		entries_free(m);
		free(p);
		json_object_set_new(o, "members", a);
	}
	/* a veth (or any stacked link): iflink names the peer's index when it is not its own */
	p = xstrfmt("%s/iflink", base);
	lnk = value(sr, p);
	free(p);
	p = xstrfmt("%s/ifindex", base);
	t = value(sr, p);
	free(p);
	if (lnk && t && strcmp(lnk, t))
		json_object_set_new(o, "peer_ifindex", json_integer(atoll(lnk)));
	free(lnk);
	free(t);
	free(base);
	return o;
}

static json_t *ib_one(const struct src *sr, const char *name)
{
	json_t *o = json_object(), *ports = json_object(), *nd = json_array();
	char *base = sysfs(sr, "/sys/class/infiniband/%s%s", name, NULL), *p, **v;

#define FIELD(key, file) (p = xstrfmt("%s/" file, base), set_str(sr, o, key, p), free(p))
	FIELD("firmware", "fw_ver");
	FIELD("hca_type", "hca_type");
	FIELD("board_id", "board_id");
	FIELD("node_type", "node_type");
#undef FIELD
	pci(sr, o, base);
	p = xstrfmt("%s/device/net", base);
	v = entries(sr, p);
	free(p);
	for (size_t i = 0; v && v[i]; i++)
		json_array_append_new(nd, json_string(v[i]));
	entries_free(v);
	json_object_set_new(o, "netdevs", nd);
	p = xstrfmt("%s/ports", base);
	v = entries(sr, p);
	free(p);
	for (size_t i = 0; v && v[i]; i++) {
		json_t *po = json_object();
		static const char *const f[] = { "state", "phys_state", "rate", "link_layer" };

		for (size_t k = 0; k < 4; k++) {
			p = xstrfmt("%s/ports/%s/%s", base, v[i], f[k]);
			set_str(sr, po, f[k], p);
			free(p);
		}
		json_object_set_new(ports, v[i], po);
	}
	entries_free(v);
	json_object_set_new(o, "ports", ports);
	free(base);
	return o;
}

static json_t *collect(const struct src *sr)
{
	json_t *out = json_object(), *net = json_object(), *ib = json_object();
	char *d = sysfs(sr, "/sys/class/net%s%s", "", NULL), **v = entries(sr, d);

	for (size_t i = 0; v && v[i]; i++)
		if (strcmp(v[i], "lo") && strcmp(v[i], "bonding_masters"))
			json_object_set_new(net, v[i], net_one(sr, v[i]));
	entries_free(v);
	free(d);
	d = sysfs(sr, "/sys/class/infiniband%s%s", "", NULL);
	v = entries(sr, d);
	for (size_t i = 0; v && v[i]; i++)
		json_object_set_new(ib, v[i], ib_one(sr, v[i]));
	entries_free(v);
	free(d);
	json_object_set_new(out, "net", net);
	json_object_set_new(out, "infiniband", ib);
	return out;
}

json_t *fabric_collect(void)
{
	return collect(NULL);
}

#define DUMP_MAX_LINES 200000

json_t *fabric_parse_dump(const char *text, size_t len)
{
	struct src sr = { json_object(), json_object(), json_object() };
	const char *s = text, *end = text + len;
	size_t lines = 0;
	struct strbuf topo = STRBUF_INIT;
	json_t *out, *tj;

	while (s < end && lines++ < DUMP_MAX_LINES) {
		const char *e = memchr(s, '\n', (size_t)(end - s)), *t1, *t2;
		char *path, *val;

		if (!e)
			e = end;
		if (e - s >= 2 && s[0] == 'T' && s[1] == '\t') { /* a line of nvidia-smi topo -m */
			strbuf_add(&topo, s + 2, (size_t)(e - s - 2));
			strbuf_addch(&topo, '\n');
		}
		/* "V<TAB>path<TAB>first line", "L<TAB>path<TAB>link target", "D<TAB>path" */
		if (e - s > 2 && s[1] == '\t' && (*s == 'V' || *s == 'L' || *s == 'D')) {
			t1 = s + 2;
			t2 = memchr(t1, '\t', (size_t)(e - t1));
			path = xstrndup(t1, (size_t)((t2 ? t2 : e) - t1));
			val = t2 ? xstrndup(t2 + 1, (size_t)(e - t2 - 1)) : xstrdup("");
			if (!strncmp(path, "/sys/class/net/", 15) || !strncmp(path, "/sys/class/infiniband/", 22))
				json_object_set_new(*s == 'V' ? sr.vals : *s == 'L' ? sr.links : sr.dirs, path,
						    *s == 'D' ? json_true() : json_string(val)); /* not UTF-8: left out */
			free(path);
			free(val);
		}
		s = e + 1;
	}
	out = collect(&sr);
	if (topo.len && (tj = fabric_parse_nvidia_topo(topo.buf)))
		json_object_set_new(out, "gpu_topology", tj);
	strbuf_release(&topo);
	json_decref(sr.vals);
	json_decref(sr.links);
	json_decref(sr.dirs);
	return out;
}

json_t *fabric_collect_nodes(const char *dir)
{
	char **v = entries(NULL, dir);
	json_t *nodes = json_object();

	for (size_t i = 0; v && v[i]; i++) {
		size_t n = strlen(v[i]);
		char *p, *buf = NULL, *name;
		size_t len = 0;
		json_t *f;

		if (n <= 4 || strcmp(v[i] + n - 4, ".txt") || v[i][0] == '.')
			continue;
		p = xstrfmt("%s/%s", dir, v[i]);
		if (fs_read_file(&buf, &len, p, 16u << 20) == 0) {
			name = xstrndup(v[i], n - 4);
			if ((f = fabric_parse_dump(buf, len)) != NULL)
				json_object_set_new(nodes, name, f);
			free(name);
		}
		free(buf);
		free(p);
	}
	entries_free(v);
	if (!json_object_size(nodes)) {
		json_decref(nodes);
		return NULL;
	}
	return nodes;
}

/* the whitespace-separated tokens of [s, e), at most max; tabs separate the header's multi-word names */
static size_t tokens(char **tok, size_t max, const char *s, const char *e, int tabs)
{
	size_t n = 0;

	while (s < e && n < max) {
		const char *t;

		while (s < e && (tabs ? *s == '\t' : isspace((unsigned char)*s)))
			s++;
		if (s >= e)
			break;
		t = s;
		while (t < e && (tabs ? *t != '\t' : !isspace((unsigned char)*t)))
			t++;
		tok[n] = xstrndup(s, (size_t)(t - s));
		while (tabs && strlen(tok[n]) && tok[n][strlen(tok[n]) - 1] == ' ')
			tok[n][strlen(tok[n]) - 1] = '\0';
		n++;
		s = t;
	}
	return n;
}

json_t *fabric_parse_nvidia_topo(const char *text)
{
	char *head[64], *row[64];
	size_t nh = 0;
	json_t *m = json_object(), *nics = json_object();
	const char *s = text;

	while (s && *s) {
		const char *e = s + strcspn(s, "\n"), *p = s;
		size_t nr;

		while (p < e && isspace((unsigned char)*p))
			p++;
		if (!nh && p != s && p < e && !strncmp(p, "GPU0", 4)) { /* the header: indented, tab-separated */
			nh = tokens(head, 64, p, e, 1);
		} else if (nh && (!strncmp(p, "GPU", 3) || !strncmp(p, "NIC", 3)) && isdigit((unsigned char)p[3])) {
			const char *colon = memchr(p, ':', (size_t)(e - p));

			if (colon && !strncmp(p, "NIC", 3) && colon[1] == ' ') { /* the legend: "  NIC0: mlx5_0" */
				char *k = xstrndup(p, (size_t)(colon - p));
				const char *v = colon + 1;

				while (v < e && *v == ' ')
					v++;
				json_object_set_new(nics, k, json_stringn(v, (size_t)(e - v)));
				free(k);
			} else {
				json_t *r = json_object();

				nr = tokens(row, 64, s, e, 0);
				for (size_t i = 1; i < nr && i - 1 < nh; i++)
					if ((!strncmp(head[i - 1], "GPU", 3) || !strncmp(head[i - 1], "NIC", 3)) &&
					    isdigit((unsigned char)head[i - 1][3]))
						json_object_set_new(r, head[i - 1], json_string(row[i]));
				if (nr)
					json_object_set_new(m, row[0], r);
				else
					json_decref(r);
				for (size_t i = 0; i < nr; i++)
					free(row[i]);
			}
		}
		s = *e ? e + 1 : e;
	}
	for (size_t i = 0; i < nh; i++)
		free(head[i]);
	if (!json_object_size(m)) {
		json_decref(m);
		json_decref(nics);
		return NULL;
	}
	return json_pack("{s:o, s:o}", "matrix", m, "nics", nics);
}
