/* SPDX-License-Identifier: Apache-2.0 */
#include "envcap.h"
#include "fabric.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/scrub.h"
#include "core/strbuf.h"
#include "core/spawn.h"
#include "core/strvec.h"
#include "exec.h"

extern char **environ;

static const char *const prefixes[] = { "NCCL_", "RCCL_", "CUDA_", "HIP_", "HSA_", "ROCM_", "ROCBLAS_", "HIPBLASLT_",
					"GPU_", "AMD_", "HCC_", "AMDGPU_",
					"CUBLAS_", "CUBLASLT_", "PYTORCH_", "TORCH_", "TRITON_", "OMP_", "NVTE_", "MIOPEN_",
					"UCX_", "FI_", "NVSHMEM_", "OPENBLAS_", "OMPI_", "BENCH_", NULL };

int envcap_var_class(const char *name)
{
	int steer = 0;

	for (size_t i = 0; prefixes[i]; i++)
		steer |= !strncmp(name, prefixes[i], strlen(prefixes[i]));
	if (!steer)
		return 0;
	return scrub_is_secret(name) ? 2 : 1;
}

static void write_file(const char *dir, const char *name, const char *data, size_t len)
{
	char *path = xstrfmt("%s/env/raw/%s", dir, name);

	fs_write_file(path, data, len, 0644); /* a new file, never written through a link (a resumed run's env/raw) */
	free(path);
}

/* Runs a tool, keeps its output in env/raw/<raw_name>; returns the output (caller frees) or NULL. */
static char *tool(const char *dir, const char *raw_name, char *const *argv)
{
	char *path = spawn_which(argv[0]), *out = NULL;
	size_t len = 0;
	struct strvec av = STRVEC_INIT;

	if (!path)
		return NULL;
	strvec_push(&av, path);
	for (size_t i = 1; argv[i]; i++)
		strvec_push(&av, argv[i]);
	if (spawn_capture(&out, &len, strvec_argv(&av), 4u << 20, 60) < 0) {
		free(out);
		out = NULL;
	} else if (raw_name) {
		write_file(dir, raw_name, out, len);
	}
	free(path);
	strvec_release(&av);
	return out;
}

static char *read_small(const char *path)
{
	char *buf = NULL;
	size_t len;

	if (fs_read_file(&buf, &len, path, 1u << 20) < 0)
		return NULL;
	return buf;
}

static char *field(const char *text, const char *key, char sep)
{
	const char *p = text;
	size_t kl = strlen(key);

	while (p && *p) {
		if (!strncmp(p, key, kl)) {
			const char *v = strchr(p, sep), *e;

			if (v) {
				v++;
				while (*v == ' ' || *v == '\t' || *v == '"')
					v++;
				e = v + strcspn(v, "\n");
				while (e > v && (e[-1] == '"' || isspace((unsigned char)e[-1])))
					e--;
				return xstrndup(v, (size_t)(e - v));
			}
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

static json_t *str_or_null(char *s)
{
	json_t *j = s ? json_string(s) : json_null();

	free(s);
	return j ? j : json_null();
}

static json_t *nvidia_gpus(const char *dir)
{
	char *const q[] = { "nvidia-smi", "--query-gpu=index,name,uuid,driver_version,vbios_version,memory.total,"
			    "clocks.max.sm,clocks.max.mem,power.limit,ecc.mode.current,pci.bus_id",
			    "--format=csv,noheader,nounits", NULL };
	char *const full[] = { "nvidia-smi", "-q", NULL };
	char *const topo[] = { "nvidia-smi", "topo", "-m", NULL };
	char *out = tool(dir, "nvidia-smi-query.csv", q), *line, *save = NULL;
	json_t *arr;

	if (!out)
		return NULL;
	free(tool(dir, "nvidia-smi-q.txt", full));
	free(tool(dir, "nvidia-smi-topo.txt", topo));
	arr = json_array();
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		static const char *const names[] = { "index", "name", "uuid", "driver", "vbios", "memory_mib", "max_sm_mhz",
						     "max_mem_mhz", "power_limit_w", "ecc", "pci_bus_id" };
		json_t *g = json_object();
		char *f, *s2 = NULL;
		size_t i = 0;

		for (f = strtok_r(line, ",", &s2); f && i < 11; f = strtok_r(NULL, ",", &s2), i++) {
			while (*f == ' ')
				f++;
			json_object_set_new(g, names[i], json_string(f));
		}
		json_array_append_new(arr, g);
	}
	free(out);
	return arr;
}

/* ---- ROCm: amd-smi (JSON), rocm-smi --json, rocminfo ------------------------------------------------------------ */

/* A string value of a tool's JSON, "N/A" and empty strings as absent. */
static const char *jstr(const json_t *v)
{
	const char *s = json_string_value(v);

	return s && *s && strcmp(s, "N/A") ? s : NULL;
}

/* A quantity of amd-smi: {"value": 750, "unit": "W"}, a number, or a string "750 W" / "750.0"; the unit through
 * *unit (NULL when none). 0 and *out set, or -1 (absent, "N/A"). */
static int jquantity(const json_t *v, double *out, const char **unit)
{
	const char *s;
	char *end;

	*unit = NULL;
	if (json_is_object(v)) {
		*unit = json_string_value(json_object_get(v, "unit"));
		v = json_object_get(v, "value");
	}
	if (json_is_number(v)) {
		*out = json_number_value(v);
		return 0;
	}
	if (!(s = jstr(v)))
		return -1;
	*out = strtod(s, &end);
	if (end == s)
		return -1;
	while (*end == ' ')
		end++;
	if (*end && !*unit)
		*unit = end;
	return 0;
}

/* A quantity as a JSON number scaled to MiB (memory) or as is; null when absent. */
static json_t *jnum(const json_t *v, int mib)
{
	const char *unit;
	double d;

	if (jquantity(v, &d, &unit) < 0)
		return json_null();
	if (mib && unit) {
		if (!strcasecmp(unit, "GB") || !strcasecmp(unit, "GiB"))
			d *= 1024;
		else if (!strcasecmp(unit, "KB") || !strcasecmp(unit, "KiB"))
			d /= 1024;
		else if (!strcasecmp(unit, "B"))
			d /= 1048576;
	}
	return d == (double)(long long)d ? json_integer((json_int_t)d) : json_real(d);
}

static json_t *jstr_or_null(const json_t *v)
{
	const char *s = jstr(v);

	return s ? json_string(s) : json_null();
}

/* amd-smi's --json lists GPUs as an array, or (newer releases) as {"gpu_data": [...]} */
static json_t *amdsmi_list(json_t *root)
{
	if (json_is_object(root) && json_is_array(json_object_get(root, "gpu_data")))
		return json_object_get(root, "gpu_data");
	return json_is_array(root) ? root : NULL;
}

static const json_t *amdsmi_find(const json_t *list, json_int_t gpu)
{
	size_t i;
	json_t *g;

	json_array_foreach(list, i, g)
		if (json_integer_value(json_object_get(g, "gpu")) == gpu)
			return g;
	return NULL;
}

json_t *envcap_parse_amdsmi(const char *static_json, const char *metric_json, const char *topology_json)
{
	json_t *st = static_json ? json_loads(static_json, 0, NULL) : NULL;
	json_t *me = metric_json ? json_loads(metric_json, 0, NULL) : NULL;
	json_t *to = topology_json ? json_loads(topology_json, 0, NULL) : NULL;
	json_t *list = amdsmi_list(st), *arr = NULL, *g;
	size_t i;

	if (!list || json_array_size(list) == 0)
		goto cleanup;
	arr = json_array();
	json_array_foreach(list, i, g) {
		json_int_t idx = json_is_integer(json_object_get(g, "gpu")) ? json_integer_value(json_object_get(g, "gpu")) :
										     (json_int_t)i;
		const json_t *asic = json_object_get(g, "asic"), *vb = json_object_get(g, "vbios"), *m, *t;
		const json_t *lim = json_object_get(g, "limit"), *name = json_object_get(asic, "market_name");
		json_t *o = json_object(), *links = json_array(), *l;
		size_t k;

		if (!vb)
			vb = json_object_get(g, "ifwi"); /* what later releases call the VBIOS */
		if (!jstr(name))
			name = json_object_get(json_object_get(g, "board"), "product_name");
		json_object_set_new(o, "index", json_integer(idx));
		json_object_set_new(o, "name", jstr_or_null(name));
		json_object_set_new(o, "gfx_target", jstr_or_null(json_object_get(asic, "target_graphics_version")));
		json_object_set_new(o, "compute_units", jnum(json_object_get(asic, "num_compute_units"), 0));
		json_object_set_new(o, "vbios", jstr_or_null(json_object_get(vb, "version")));
		json_object_set_new(o, "vbios_part", jstr_or_null(json_object_get(vb, "part_number")));
		json_object_set_new(o, "driver", jstr_or_null(json_object_get(json_object_get(g, "driver"), "version")));
		json_object_set_new(o, "memory_mib", jnum(json_object_get(json_object_get(g, "vram"), "size"), 1));
		json_object_set_new(o, "power_limit_w", jnum(json_object_get(lim, "max_power") ? json_object_get(lim, "max_power") :
							     json_object_get(lim, "socket_power"), 0));
		json_object_set_new(o, "pci_bus_id", jstr_or_null(json_object_get(json_object_get(g, "bus"), "bdf")));
		m = amdsmi_find(amdsmi_list(me), idx);
		json_object_set_new(o, "max_sm_mhz", jnum(json_object_get(json_object_get(json_object_get(m, "clock"), "gfx_0"),
									 "max_clk"), 0));
		json_object_set_new(o, "max_mem_mhz", jnum(json_object_get(json_object_get(json_object_get(m, "clock"), "mem_0"),
									  "max_clk"), 0));
		/* XGMI: each link to another GPU, its type and whether it is up */
		t = amdsmi_find(amdsmi_list(to), idx);
		json_array_foreach(json_object_get(t, "links"), k, l) {
			const char *type = jstr(json_object_get(l, "link_type"));

			if (type && !strcmp(type, "SELF"))
				continue;
			json_array_append_new(links, json_pack("{s:O, s:o, s:o, s:o, s:o}", "peer", json_object_get(l, "gpu"),
							       "type", jstr_or_null(json_object_get(l, "link_type")), "status",
							       jstr_or_null(json_object_get(l, "link_status")), "hops",
							       jnum(json_object_get(l, "num_hops"), 0), "weight",
							       jnum(json_object_get(l, "weight"), 0)));
		}
		json_object_set_new(o, "links", t ? links : (json_decref(links), json_null()));
		json_array_append_new(arr, o);
	}
cleanup:
	json_decref(st);
	json_decref(me);
	json_decref(to);
	return arr;
}

/* rocm-smi's keys changed case across releases ("Card series", "Card Series"): looked up case-insensitively */
static const json_t *iget(const json_t *obj, const char *key)
{
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)obj, k, v)
		if (!strcasecmp(k, key))
			return v;
	return NULL;
}

/* "(2100Mhz)" -> 2100 */
static json_t *rocmsmi_mhz(const json_t *v)
{
	const char *s = jstr(v);

	while (s && *s && !isdigit((unsigned char)*s))
		s++;
	return s && *s ? json_integer(atoll(s)) : json_null();
}

static int card_cmp(const void *a, const void *b)
{
	return atoi(*(const char *const *)a + 4) - atoi(*(const char *const *)b + 4);
}

json_t *envcap_parse_rocmsmi(const char *text, const char *topo_text)
{
	json_t *root = text ? json_loads(text, 0, NULL) : NULL, *topo = topo_text ? json_loads(topo_text, 0, NULL) : NULL;
	json_t *arr = NULL, *v;
	const char *key, **cards = NULL;
	size_t n = 0;

	if (!json_is_object(root))
		goto cleanup;
	cards = xcalloc(json_object_size(root) + 1, sizeof(*cards));
	json_object_foreach(root, key, v)
		if (!strncmp(key, "card", 4) && isdigit((unsigned char)key[4]) && json_is_object(v))
			cards[n++] = key;
	if (!n)
		goto cleanup;
	qsort(cards, n, sizeof(*cards), card_cmp);
	arr = json_array();
	for (size_t i = 0; i < n; i++) {
		const json_t *c = json_object_get(root, cards[i]), *t = json_object_get(topo, cards[i]), *drv;
		json_t *o = json_object(), *links = json_array(), *tv;
		const char *tk;

		drv = iget(c, "Driver version") ? iget(c, "Driver version") : iget(json_object_get(root, "system"), "Driver version");
		json_object_set_new(o, "index", json_integer(atoi(cards[i] + 4)));
		json_object_set_new(o, "name", jstr_or_null(iget(c, "Card Series")));
		json_object_set_new(o, "gfx_target", jstr_or_null(iget(c, "GFX Version")));
		json_object_set_new(o, "vbios", jstr_or_null(iget(c, "VBIOS version")));
		json_object_set_new(o, "driver", jstr_or_null(drv));
		json_object_set_new(o, "memory_mib", jnum(iget(c, "VRAM Total Memory (B)"), 0));
		if (json_is_integer(json_object_get(o, "memory_mib")))
			json_object_set_new(o, "memory_mib", json_integer(json_integer_value(json_object_get(o, "memory_mib")) / 1048576));
		json_object_set_new(o, "power_limit_w", jnum(iget(c, "Max Graphics Package Power (W)"), 0));
		/* --showclocks reports the clocks of the moment, not the maxima */
		json_object_set_new(o, "sclk_mhz", rocmsmi_mhz(iget(c, "sclk clock speed:")));
		json_object_set_new(o, "mclk_mhz", rocmsmi_mhz(iget(c, "mclk clock speed:")));
		json_object_set_new(o, "pci_bus_id", jstr_or_null(iget(c, "PCI Bus")));
		json_object_foreach((json_t *)t, tk, tv) {
			static const char pre[] = "(Topology) Link type between DRM devices ";
			const char *w;
			int a, b;
			char *wk;

			if (strncasecmp(tk, pre, sizeof(pre) - 1) || sscanf(tk + sizeof(pre) - 1, "%d and %d", &a, &b) != 2)
				continue;
			wk = xstrfmt("(Topology) Weight between DRM devices %d and %d", a, b);
			w = jstr(iget(t, wk));
			free(wk);
			wk = xstrfmt("(Topology) Hops between DRM devices %d and %d", a, b);
			json_array_append_new(links, json_pack("{s:i, s:o, s:o, s:o, s:o}", "peer", b, "type", jstr_or_null(tv),
							       "status", json_null(), "hops", jnum(iget(t, wk), 0), "weight",
							       w ? json_integer(atoll(w)) : json_null()));
			free(wk);
		}
		json_object_set_new(o, "links", t ? links : (json_decref(links), json_null()));
		json_array_append_new(arr, o);
	}
cleanup:
	free(cards);
	json_decref(root);
	json_decref(topo);
	return arr;
}

/* The value of "  Key:   value" on line p (up to its end), trimmed; NULL when the line is another key's. */
static char *rocminfo_value(const char *p, const char *key)
{
	const char *e;

	while (*p == ' ')
		p++;
	if (strncmp(p, key, strlen(key)) || p[strlen(key)] != ':')
		return NULL;
	p += strlen(key) + 1;
	while (*p == ' ' || *p == '\t')
		p++;
	e = p + strcspn(p, "\n");
	while (e > p && isspace((unsigned char)e[-1]))
		e--;
	return xstrndup(p, (size_t)(e - p));
}

static void rocminfo_keep(json_t *agents, json_t *cur)
{
	const char *t = json_string_value(json_object_get(cur, "type"));

	if (t && !strcmp(t, "GPU")) {
		json_object_del(cur, "type");
		json_array_append(agents, cur);
	}
}

json_t *envcap_parse_rocminfo(const char *text)
{
	static const char *const keys[] = { "Name", "Uuid", "Marketing Name", "Device Type", "Compute Unit",
					    "Max Clock Freq. (MHz)", "Node", NULL };
	static const char *const names[] = { "gfx_target", "uuid", "name", "type", "compute_units", "max_clock_mhz", "node" };
	json_t *root = json_object(), *agents = json_array(), *cur = NULL;
	const char *p = text;
	char *v;

	while (p && *p) {
		if (!strncmp(p, "Agent ", 6) || !strncmp(p, "*** Done", 8)) {
			if (cur)
				rocminfo_keep(agents, cur);
			json_decref(cur);
			cur = strncmp(p, "Agent ", 6) ? NULL : json_object();
		} else if ((v = rocminfo_value(p, "Runtime Version"))) {
			json_object_set_new(root, "runtime_version", json_string(v));
			free(v);
		} else if (cur && !strncmp(p, "  ", 2) && p[2] != ' ') { /* an agent's own keys, not its caches or ISAs */
			for (size_t k = 0; keys[k]; k++) {
				if (!json_object_get(cur, names[k]) && (v = rocminfo_value(p, keys[k]))) {
					if (!strcmp(names[k], "compute_units") || !strcmp(names[k], "max_clock_mhz") ||
					    !strcmp(names[k], "node"))
						json_object_set_new(cur, names[k], json_integer(atoll(v)));
					else
						json_object_set_new(cur, names[k], json_string(v));
					free(v);
					break;
				}
			}
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (cur)
		rocminfo_keep(agents, cur);
	json_decref(cur);
	json_object_set_new(root, "agents", agents);
	return root;
}

/* GPUs from amd-smi, else rocm-smi; rocminfo's agents beside them (and their gfx target where the SMI gave none).
 * *tool: the tool that listed them. NULL when neither lists a GPU. */
static json_t *rocm_gpus(const char *dir, const char **toolname, json_t *root)
{
	char *const st[] = { "amd-smi", "static", "--json", NULL };
	char *const me[] = { "amd-smi", "metric", "--json", NULL };
	char *const to[] = { "amd-smi", "topology", "--json", NULL };
	char *const rs[] = { "rocm-smi", "--showproductname", "--showvbios", "--showdriverversion", "--showmeminfo", "vram",
			     "--showclocks", "--showmaxpower", "--showbus", "--json", NULL };
	char *const rt[] = { "rocm-smi", "--showtopo", "--json", NULL };
	char *const ri[] = { "rocminfo", NULL };
	char *a = tool(dir, "amd-smi-static.json", st), *b = NULL, *c = NULL, *info;
	json_t *gpus = NULL, *agents, *g;
	size_t i;

	if (a) {
		b = tool(dir, "amd-smi-metric.json", me);
		c = tool(dir, "amd-smi-topology.json", to);
		if ((gpus = envcap_parse_amdsmi(a, b, c)))
			*toolname = "amd-smi";
	}
	if (!gpus) { /* no amd-smi, or one that lists no GPU: the older rocm-smi */
		free(a);
		free(b);
		free(c);
		b = c = NULL;
		if ((a = tool(dir, "rocm-smi.json", rs))) {
			c = tool(dir, "rocm-smi-topo.json", rt);
			if ((gpus = envcap_parse_rocmsmi(a, c)))
				*toolname = "rocm-smi";
		}
	}
	if ((info = tool(dir, "rocminfo.txt", ri))) {
		json_t *ro = envcap_parse_rocminfo(info);

		agents = json_object_get(ro, "agents");
		json_array_foreach(gpus, i, g) {
			const char *gfx = json_string_value(json_object_get(json_array_get(agents, i), "gfx_target"));

			if (json_is_null(json_object_get(g, "gfx_target")) && gfx)
				json_object_set_new(g, "gfx_target", json_string(gfx));
		}
		json_object_set_new(root, "rocminfo", ro);
		free(info);
	}
	free(a);
	free(b);
	free(c);
	return gpus;
}

/* The host: os-release, cpuinfo, meminfo and uname -a kept as files, their gist in "host". */
static json_t *collect_host(const char *dir)
{
	char *const uname_a[] = { "uname", "-a", NULL };
	char *os = read_small("/etc/os-release"), *cpu = read_small("/proc/cpuinfo"), *mem = read_small("/proc/meminfo");
	json_t *host = json_object();
	struct utsname u;
	char hn[256] = "";
	char *s;

	if (os)
		write_file(dir, "os-release", os, strlen(os));
	if (cpu)
		write_file(dir, "cpuinfo", cpu, strlen(cpu));
	if (mem)
		write_file(dir, "meminfo", mem, strlen(mem));
	free(tool(dir, "uname.txt", uname_a));
	gethostname(hn, sizeof(hn) - 1);
	json_object_set_new(host, "hostname", json_string(hn));
	if (uname(&u) == 0) {
		json_object_set_new(host, "kernel", json_string(u.release));
		json_object_set_new(host, "arch", json_string(u.machine));
	}
	json_object_set_new(host, "os", str_or_null(os ? field(os, "PRETTY_NAME", '=') : NULL));
	json_object_set_new(host, "cpu_model", str_or_null(cpu ? field(cpu, "model name", ':') : NULL));
	json_object_set_new(host, "cores", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
	s = mem ? field(mem, "MemTotal", ':') : NULL;
	json_object_set_new(host, "memory_bytes", s ? json_integer(atoll(s) * 1024) : json_null());
	free(s);
	free(os);
	free(cpu);
	free(mem);
	return host;
}

/* The GPUs: which tools this machine has (one that is missing is recorded as absent, not an error), the tool that
 * described them (nvidia-smi, else amd-smi or rocm-smi) and what it said. */
static void collect_gpus(json_t *root, const char *dir)
{
	static const char *const gpu_tools[] = { "nvidia-smi", "amd-smi", "rocm-smi", "rocminfo", NULL };
	json_t *present = json_object(), *gpus;
	const char *gtool = NULL;

	for (size_t i = 0; gpu_tools[i]; i++) {
		char *w = spawn_which(gpu_tools[i]);

		json_object_set_new(present, gpu_tools[i], json_boolean(w != NULL));
		free(w);
	}
	json_object_set_new(root, "gpu_tools", present);
	if ((gpus = nvidia_gpus(dir))) {
		json_object_set_new(root, "gpu_tool", json_string("nvidia-smi"));
		json_object_set_new(root, "gpus", gpus);
	} else if ((gpus = rocm_gpus(dir, &gtool, root))) {
		json_object_set_new(root, "gpu_tool", json_string(gtool));
		json_object_set_new(root, "gpus", gpus);
	} else {
		json_object_set_new(root, "gpu_tool", json_null());
		json_object_set_new(root, "gpus", json_array());
	}
}

/* The network fabric, and nvidia-smi's GPU-GPU / GPU-NIC matrix (ROCm's links are in gpus[].links). */
static json_t *collect_fabric(const char *dir)
{
	json_t *fab = fabric_collect(), *topo;
	char *tp = xstrfmt("%s/env/raw/nvidia-smi-topo.txt", dir), *tt = read_small(tp);

	if (tt && (topo = fabric_parse_nvidia_topo(tt)))
		json_object_set_new(fab, "gpu_topology", topo);
	free(tt);
	free(tp);
	return fab;
}

/* The toolkits' versions: nvcc, hipconfig, ROCm's .info/version. */
static json_t *collect_toolkits(const char *dir)
{
	char *const nvcc[] = { "nvcc", "--version", NULL };
	char *const hipcc[] = { "hipconfig", "--version", NULL };
	json_t *tools = json_object();
	char *s;

	if ((s = tool(dir, "nvcc-version.txt", nvcc))) {
		char *r = strstr(s, "release ");

		json_object_set_new(tools, "nvcc", r ? json_stringn(r + 8, strcspn(r + 8, ",\n")) : json_null());
		free(s);
	}
	if ((s = tool(dir, "hipconfig-version.txt", hipcc))) {
		json_object_set_new(tools, "hip", json_stringn(s, strcspn(s, "\n")));
		free(s);
	}
	if ((s = read_small("/opt/rocm/.info/version"))) {
		json_object_set_new(tools, "rocm", json_stringn(s, strcspn(s, "\n")));
		free(s);
	}
	return tools;
}

/* The variables of bench's environment that steer GPU stacks (envcap_var_class()): their values with credentials
 * redacted, or <redacted> whole for the secret ones. */
static json_t *collect_env(void)
{
	json_t *env = json_object();

	for (char **e = environ; *e; e++) {
		const char *eq = strchr(*e, '=');
		char *name;
		int cls;

		if (!eq)
			continue;
		name = xstrndup(*e, (size_t)(eq - *e));
		cls = envcap_var_class(name);
		if (cls == 1) {
			char *v = scrub_redact_value(eq + 1);

			json_object_set_new(env, name, json_string(v));
			free(v);
		}
		else if (cls == 2)
			json_object_set_new(env, name, json_string("<redacted>"));
		free(name);
	}
	return env;
}

json_t *envcap_collect(const char *dir)
{
	json_t *root = json_object(), *host = collect_host(dir);

	json_object_set_new(root, "schema", json_string("bench.environment/v1"));
	json_object_set_new(root, "host", host);
	collect_gpus(root, dir);
	json_object_set_new(root, "fabric", collect_fabric(dir));
	json_object_set_new(root, "toolkits", collect_toolkits(dir));
	json_object_set_new(root, "env", collect_env());
	return root;
}

void envcap_gpu_snapshot(const char *dir, const char *tag)
{
	char *const q[] = { "nvidia-smi", "--query-gpu=timestamp,index,clocks.sm,clocks.mem,power.draw,temperature.gpu,"
			    "utilization.gpu,clocks_throttle_reasons.active", "--format=csv", NULL };
	char *const r[] = { "rocm-smi", "--showclocks", "--showpower", "--showtemp", NULL };
	char *name = xstrfmt("gpu-%s.csv", tag);
	char *out = tool(dir, name, q);

	if (!out)
		out = tool(dir, name, r);
	free(out);
	free(name);
}

/* What `pip list --format=freeze` prints, from the interpreter's own package metadata: a fresh Debian has python3
 * without pip, and the installed distributions are what matters, not the installer. */
const char envcap_py_distributions[] =
	"import importlib.metadata as m\n"
	"print('\\n'.join(sorted({'%s==%s' % (d.metadata['Name'], d.version) for d in m.distributions() "
	"if d.metadata['Name']}, key=str.lower)))\n";

void envcap_pip_list(const char *dir, const char *python)
{
	char *const argv[] = { (char *)python, "-c", (char *)envcap_py_distributions, NULL };

	free(tool(dir, "pip-list.txt", argv));
}

