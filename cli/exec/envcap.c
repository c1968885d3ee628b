#include "envcap.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../core/fs.h"
#include "../core/spawn.h"
#include "../core/strbuf.h"
#include "../core/strvec.h"
#include "exec.h"

extern char **environ;

static const char *const prefixes[] = { "NCCL_", "RCCL_", "CUDA_", "HIP_", "HSA_", "ROCM_", "ROCBLAS_", "HIPBLASLT_",
					"CUBLAS_", "CUBLASLT_", "PYTORCH_", "TORCH_", "TRITON_", "OMP_", "NVTE_", "MIOPEN_",
					"UCX_", "FI_", "NVSHMEM_", "OPENBLAS_", "OMPI_", "BENCH_", NULL };
/* matched case-insensitively anywhere in a name: over-redaction (CUDA_API_..., SSL_CERT_FILE) is the price of
 * catching NCCL_ApiKey, DB_PWD, X_AUTH and the like */
static const char *const secret_words[] = { "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASS", "PASSPHRASE", "PWD",
					    "AUTH", "COOKIE", "PRIVATE", "CERT", "SESSION", "API", "KEY", "CREDENTIAL",
					    "CRED", "SIGNATURE", "SALT", NULL };

static int contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return 1;
	return 0;
}

/* name matches one of the comma-separated patterns of $var */
static int listed(const char *var, const char *name)
{
	const char *list = getenv(var);
	int hit = 0;

	while (list && *list && !hit) {
		size_t n = strcspn(list, ",");
		char *pat = xstrndup(list, n);

		hit = *pat && fnmatch(pat, name, 0) == 0;
		free(pat);
		list += n + (list[n] == ',');
	}
	return hit;
}

int envcap_is_secret(const char *name)
{
	if (listed("BENCH_ENV_REDACT", name))
		return 1;
	if (listed("BENCH_ENV_KEEP", name) || !strcmp(name, "PWD") || !strcmp(name, "OLDPWD"))
		return 0;
	for (size_t i = 0; secret_words[i]; i++)
		if (contains_ci(name, secret_words[i]))
			return 1;
	return 0;
}

int envcap_var_class(const char *name)
{
	int steer = 0;

	for (size_t i = 0; prefixes[i]; i++)
		steer |= !strncmp(name, prefixes[i], strlen(prefixes[i]));
	if (!steer)
		return 0;
	return envcap_is_secret(name) ? 2 : 1;
}

char *envcap_redact_url(const char *v)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = v, *sep;

	while ((sep = strstr(p, "://"))) {
		const char *auth = sep + 3, *end = auth + strcspn(auth, "/?#\"' \t\r\n,;<>()[]{}"), *at = NULL;

		for (const char *q = auth; q < end; q++)
			if (*q == '@')
				at = q;
		strbuf_add(&sb, p, (size_t)(auth - p));
		if (at && !(at - auth == 10 && !strncmp(auth, "<redacted>", 10)))
			strbuf_addstr(&sb, "<redacted>");
		else if (at)
			strbuf_add(&sb, auth, (size_t)(at - auth));
		p = at ? at : auth;
	}
	strbuf_addstr(&sb, p);
	return strbuf_detach(&sb);
}

void envcap_secret_values(struct strvec *out, char *const *env)
{
	for (size_t i = 0; env && env[i]; i++) {
		const char *eq = strchr(env[i], '=');
		char *name;

		if (!eq)
			continue;
		name = xstrndup(env[i], (size_t)(eq - env[i]));
		if (envcap_is_secret(name)) {
			const char *v = eq + 1;

			while (*v) { /* each line of a multi-line value (a PEM key) on its own */
				size_t n = strcspn(v, "\r\n");
				int seen = 0;

				for (size_t k = 0; k < out->n && !seen; k++)
					seen = strlen(out->v[k]) == n && !strncmp(out->v[k], v, n);
				if (n >= ENVCAP_SCRUB_MIN && !seen) {
					char *s = xstrndup(v, n);

					strvec_push(out, s);
					free(s);
				}
				v += n;
				v += strspn(v, "\r\n");
			}
		}
		free(name);
	}
}

/* one line (without its newline) of a log or an env dump */
static void scrub_line(struct strbuf *out, const char *line, size_t len, const struct strvec *values)
{
	struct strbuf sb = STRBUF_INIT;
	char *url;
	size_t nlen = 0;

	/* NAME=VALUE (an env dump): a secret name's value goes whatever it is */
	while (nlen < len && (isalnum((unsigned char)line[nlen]) || line[nlen] == '_'))
		nlen++;
	if (nlen && nlen < len && line[nlen] == '=' && !isdigit((unsigned char)line[0])) {
		char *name = xstrndup(line, nlen);
		int secret = envcap_is_secret(name);

		free(name);
		if (secret) {
			strbuf_add(out, line, nlen + 1);
			strbuf_addstr(out, "<redacted>");
			return;
		}
	}
	for (size_t i = 0; i < len;) {
		size_t best = 0;

		for (size_t k = 0; k < values->n; k++) { /* the longest value that starts here */
			size_t vl = strlen(values->v[k]);

			if (vl > best && vl <= len - i && !memcmp(line + i, values->v[k], vl))
				best = vl;
		}
		if (best) {
			strbuf_addstr(&sb, "<redacted>");
			i += best;
		} else {
			strbuf_addch(&sb, line[i++]);
		}
	}
	url = envcap_redact_url(sb.buf);
	strbuf_addstr(out, url);
	free(url);
	strbuf_release(&sb);
}

void envcap_scrub_text(struct strbuf *out, const char *text, size_t len, const struct strvec *values)
{
	size_t i = 0;

	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;

		scrub_line(out, text + i, n, values);
		if (nl)
			strbuf_addch(out, '\n');
		i += n + (nl != NULL);
	}
}

int envcap_scrub_file(const char *path, const struct strvec *values)
{
	char *tmp = xstrfmt("%s.tmp", path), *line = NULL;
	FILE *in = fopen(path, "rb"), *out = NULL;
	struct strbuf sb = STRBUF_INIT;
	size_t cap = 0;
	ssize_t n;
	int err = 0;

	if (!in)
		goto cleanup; /* nothing to scrub */
	if (!(out = fopen(tmp, "wb"))) {
		err = bench_error_set(BENCH_E_IO, "cannot write '%s': %s", tmp, strerror(errno));
		goto cleanup;
	}
	while ((n = getline(&line, &cap, in)) > 0) {
		size_t len = (size_t)n;
		int nl = line[len - 1] == '\n';

		strbuf_reset(&sb);
		scrub_line(&sb, line, len - (size_t)nl, values);
		if (nl)
			strbuf_addch(&sb, '\n');
		if (fwrite(sb.buf, 1, sb.len, out) != sb.len) {
			err = bench_error_set(BENCH_E_IO, "cannot write '%s': %s", tmp, strerror(errno));
			goto cleanup;
		}
	}
	if (ferror(in) || fflush(out) != 0 || fsync(fileno(out)) != 0) {
		err = bench_error_set(BENCH_E_IO, "cannot scrub '%s': %s", path, strerror(errno));
		goto cleanup;
	}
	if (fclose(out) != 0 || rename(tmp, path) != 0) {
		out = NULL;
		err = bench_error_set(BENCH_E_IO, "cannot write '%s': %s", path, strerror(errno));
		goto cleanup;
	}
	out = NULL;
cleanup:
	if (out)
		fclose(out);
	if (in)
		fclose(in);
	if (err)
		unlink(tmp);
	free(line);
	free(tmp);
	strbuf_release(&sb);
	return err;
}

static void write_file(const char *dir, const char *name, const char *data, size_t len)
{
	char *path = xstrfmt("%s/env/raw/%s", dir, name);
	FILE *f = fopen(path, "wb");

	if (f) {
		fwrite(data, 1, len, f);
		fclose(f);
	}
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

json_t *envcap_collect(const char *dir)
{
	char *const uname_a[] = { "uname", "-a", NULL };
	char *const rocm[] = { "rocm-smi", "--showall", NULL };
	char *const nvcc[] = { "nvcc", "--version", NULL };
	char *const hipcc[] = { "hipconfig", "--version", NULL };
	json_t *root = json_object(), *host = json_object(), *env = json_object(), *gpus, *tools = json_object();
	char *os = read_small("/etc/os-release"), *cpu = read_small("/proc/cpuinfo"), *mem = read_small("/proc/meminfo");
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
	json_object_set_new(root, "schema", json_string("bench.environment/v1"));
	json_object_set_new(root, "host", host);
	if ((gpus = nvidia_gpus(dir))) {
		json_object_set_new(root, "gpu_tool", json_string("nvidia-smi"));
		json_object_set_new(root, "gpus", gpus);
	} else if ((s = tool(dir, "rocm-smi.txt", rocm))) {
		json_object_set_new(root, "gpu_tool", json_string("rocm-smi"));
		json_object_set_new(root, "gpus", json_array());
		free(s);
	} else {
		json_object_set_new(root, "gpu_tool", json_null());
		json_object_set_new(root, "gpus", json_array());
	}
	if ((s = tool(dir, "nvcc-version.txt", nvcc))) {
		char *r = strstr(s, "release ");

		json_object_set_new(tools, "nvcc", r ? json_stringn(r + 8, strcspn(r + 8, ",\n")) : json_null());
		free(s);
	}
	if ((s = tool(dir, "hipconfig-version.txt", hipcc))) {
		json_object_set_new(tools, "hip", json_stringn(s, strcspn(s, "\n")));
		free(s);
	}
	json_object_set_new(root, "toolkits", tools);
	for (char **e = environ; *e; e++) {
		const char *eq = strchr(*e, '=');
		char *name;
		int cls;

		if (!eq)
			continue;
		name = xstrndup(*e, (size_t)(eq - *e));
		cls = envcap_var_class(name);
		if (cls == 1) {
			char *v = envcap_redact_url(eq + 1);

			json_object_set_new(env, name, json_string(v));
			free(v);
		}
		else if (cls == 2)
			json_object_set_new(env, name, json_string("<redacted>"));
		free(name);
	}
	json_object_set_new(root, "env", env);
	free(os);
	free(cpu);
	free(mem);
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
#define PY_DISTRIBUTIONS \
	"import importlib.metadata as m\n" \
	"print('\\n'.join(sorted({'%s==%s' % (d.metadata['Name'], d.version) for d in m.distributions() " \
	"if d.metadata['Name']}, key=str.lower)))\n"

void envcap_pip_list(const char *dir, const char *python)
{
	char *const argv[] = { (char *)python, "-c", PY_DISTRIBUTIONS, NULL };

	free(tool(dir, "pip-list.txt", argv));
}
