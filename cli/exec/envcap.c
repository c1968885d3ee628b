#include "envcap.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../core/fs.h"
#include "../core/spawn.h"
#include "../core/strbuf.h"
#include "exec.h"

extern char **environ;

static const char *const prefixes[] = { "NCCL_", "RCCL_", "CUDA_", "HIP_", "HSA_", "ROCM_", "ROCBLAS_", "HIPBLASLT_",
					"CUBLAS_", "CUBLASLT_", "PYTORCH_", "TORCH_", "TRITON_", "OMP_", "NVTE_", "MIOPEN_",
					"UCX_", "FI_", "NVSHMEM_", "OPENBLAS_", "OMPI_", "BENCH_", NULL };
static const char *const secret_words[] = { "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL", "KEY", NULL };

int envcap_var_class(const char *name)
{
	int steer = 0;

	for (size_t i = 0; prefixes[i]; i++)
		steer |= !strncmp(name, prefixes[i], strlen(prefixes[i]));
	if (!steer)
		return 0;
	for (size_t i = 0; secret_words[i]; i++)
		if (strstr(name, secret_words[i]))
			return 2;
	return 1;
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
		if (cls == 1)
			json_object_set_new(env, name, json_string(eq + 1));
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

void envcap_pip_list(const char *dir, const char *python)
{
	char *const argv[] = { (char *)python, "-m", "pip", "list", "--format=freeze", NULL };

	free(tool(dir, "pip-list.txt", argv));
}
