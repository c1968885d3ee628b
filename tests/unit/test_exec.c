/* SPDX-License-Identifier: Apache-2.0 */
/* test_exec.c — paths handed to engines and batch jobs (absolute, placeholders kept), and an engine's own
 * failure named with its own error line. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/fs.h"
#include "core/error.h"
#include "core/scrub.h"
#include "core/strbuf.h"
#include "exec/envcap.h"
#include "exec/exec.h"
#include "exec/fabric.h"
#include "manifest/manifest.h"

static char dir[] = "/tmp/bench-test-exec-XXXXXX";

static void test_path_absolute_is_lexical(void **state)
{
	char *cwd = getcwd(NULL, 0), *p, *want;

	(void)state;
	p = fs_path_absolute("/a/b");
	assert_string_equal(p, "/a/b");
	free(p);
	want = xstrfmt("%s/runs/x", cwd);
	p = fs_path_absolute("./runs/x");
	assert_string_equal(p, want);
	free(p);
	p = fs_path_absolute("runs/x");
	assert_string_equal(p, want);
	free(p);
	p = fs_path_absolute(".");
	assert_string_equal(p, cwd);
	free(p);
	free(want);
	free(cwd);
}

static void test_shared_path_absolute_only_when_it_exists(void **state)
{
	char *p, *want;

	(void)state;
	assert_int_equal(chdir(dir), 0);
	assert_int_equal(mkdir("runs", 0755), 0);
	want = xstrfmt("%s/runs", dir);
	p = exec_path_shared("runs");
	assert_string_equal(p, want);
	free(p);
	free(want);
	p = exec_path_shared("RUN_DIR/cases/gemm.json"); /* --dry-run's placeholder: as given */
	assert_string_equal(p, "RUN_DIR/cases/gemm.json");
	free(p);
	p = exec_path_shared("/elsewhere/runs");
	assert_string_equal(p, "/elsewhere/runs");
	free(p);
}

static void test_engine_failure_names_the_engine_line(void **state)
{
	const struct engine_ops *podman = engine_find("podman"), *host = engine_find("host");
	char *log = xstrfmt("%s/gemm.log", dir), why[512] = "unchanged";
	FILE *f = fopen(log, "w");

	(void)state;
	assert_non_null(f);
	fputs("bench: running 4 cases: podman run ...\nError: invalid container path \"runs/x\", must be an absolute "
	      "path\n\n", f);
	fclose(f);
	assert_int_equal(exec_engine_failure(why, sizeof(why), podman, 1, log), 0); /* the runner's own status */
	assert_string_equal(why, "unchanged");
	assert_int_equal(exec_engine_failure(why, sizeof(why), host, 125, log), 0);
	assert_int_equal(exec_engine_failure(why, sizeof(why), podman, 125, log), 1);
	assert_string_equal(why, "podman failed (status 125): Error: invalid container path \"runs/x\", must be an "
				 "absolute path");
	f = fopen(log, "w");
	fputs("bench: running 4 cases: podman run ...\n", f);
	fclose(f);
	assert_int_equal(exec_engine_failure(why, sizeof(why), podman, 127, log), 1);
	assert_string_equal(why, "podman failed (status 127): it wrote no error message (see the suite's log)");
	unlink(log);
	free(log);
}

/* A newline in runtime.slurm.extra_args (or any value of the script) would end its quoted comment and put an #SBATCH
 * line and a shell command into the batch script: the emitter refuses it even when the validator was bypassed. */
static void test_slurm_script_refuses_line_breaks(void **state)
{
	const struct launcher_ops *slurm = launcher_find("slurm");
	char *extra[] = { "--exclusive", "--comment=x\n#SBATCH --wrap=id\ntouch /tmp/bench-pwned" };
	char *argv[] = { "/opt/bench/build/runners/bench-membw", "RUN_DIR/cases/membw.json", NULL };
	struct manifest m;
	struct batch_job job;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	memset(&m, 0, sizeof(m));
	memset(&job, 0, sizeof(job));
	m.name = "evil";
	m.target.vendor = VENDOR_CPU;
	m.target.nodes = m.target.gpus_per_node = 1;
	m.runtime.slurm.time = "00:10:00";
	m.runtime.slurm.container = "none";
	m.runtime.slurm.mpi = "none";
	m.runtime.slurm.extra_args = extra;
	m.runtime.slurm.n_extra_args = 1;
	job.run_dir = "RUN_DIR";
	job.tag = "membw";
	job.argv = argv;
	job.ranks = 1;
	assert_non_null(slurm);
	assert_int_equal(slurm->batch_script(&sb, &m, &job), 0); /* the control: a plain value is written */
	assert_non_null(strstr(sb.buf, "extra_args: '--exclusive'\n"));
	strbuf_reset(&sb);
	m.runtime.slurm.n_extra_args = 2;
	assert_int_equal(slurm->batch_script(&sb, &m, &job), BENCH_E_MANIFEST);
	assert_null(strstr(sb.buf, "#SBATCH --wrap"));
	assert_non_null(strstr(bench_error_last(), "runtime.slurm.extra_args holds a control character"));
	strbuf_reset(&sb);
	m.runtime.slurm.n_extra_args = 1;
	argv[1] = "RUN_DIR/cases/membw.json\nid";
	assert_int_equal(slurm->batch_script(&sb, &m, &job), BENCH_E_MANIFEST);
	argv[1] = "RUN_DIR/cases/membw.json";
	job.run_dir = "/tmp/runs/x\n#SBATCH --uid=0";
	assert_int_equal(slurm->batch_script(&sb, &m, &job), BENCH_E_MANIFEST);
	strbuf_release(&sb);
}

static void test_redaction_policy(void **state)
{
	static const char *const secret[] = { "NCCL_IB_PASSWD", "X_PASS", "HIP_PASSPHRASE", "DB_PWD", "UCX_AUTH",
					      "TORCH_COOKIE", "OMPI_PRIVATE", "NCCL_ApiKey", "hf_token", "SSL_CERT_FILE",
					      "XDG_SESSION_ID", "AWS_SECRET_ACCESS_KEY", NULL };
	static const char *const plain[] = { "PATH", "PWD", "OLDPWD", "NCCL_SOCKET_IFNAME", "OMP_NUM_THREADS", NULL };
	char *u;

	(void)state;
	unsetenv("BENCH_ENV_KEEP");
	unsetenv("BENCH_ENV_REDACT");
	for (size_t i = 0; secret[i]; i++)
		assert_true(scrub_is_secret(secret[i]));
	for (size_t i = 0; plain[i]; i++)
		assert_false(scrub_is_secret(plain[i]));
	assert_int_equal(envcap_var_class("NCCL_ApiKey"), 2);
	assert_int_equal(envcap_var_class("NCCL_SOCKET_IFNAME"), 1);
	assert_int_equal(envcap_var_class("AWS_SECRET_ACCESS_KEY"), 0); /* not recorded at all */
	setenv("BENCH_ENV_KEEP", "NCCL_IB_*,X", 1);
	setenv("BENCH_ENV_REDACT", "NCCL_SOCKET_IFNAME", 1);
	assert_false(scrub_is_secret("NCCL_IB_PASSWD"));
	assert_true(scrub_is_secret("NCCL_SOCKET_IFNAME"));
	unsetenv("BENCH_ENV_KEEP");
	unsetenv("BENCH_ENV_REDACT");
	u = scrub_redact_url("https://user:pw@host/x?a=b, git+ssh://git@h:1/r and http://h/p@q");
	assert_string_equal(u, "https://<redacted>@host/x?a=b, git+ssh://<redacted>@h:1/r and http://h/p@q");
	free(u);
}

/* credentials without a scheme, secrets inside JSON or a query string, every spelling redacted (issue 31) */
static void test_redact_value_spellings(void **state)
{
	static const char *const cases[][2] = {
		{ "admin:hunter2@db.internal:5432", "<redacted>@db.internal:5432" },
		{ "x root:pw@[fd00::1]:22 y", "x <redacted>@[fd00::1]:22 y" },
		{ "https://u:p@h/x", "https://<redacted>@h/x" },
		{ "{\"password\": \"pw\", \"port\": 1}", "{\"password\": \"<redacted>\", \"port\": 1}" },
		{ "{\\\"token\\\": \\\"t0k\\\"}", "{\\\"token\\\": \\\"<redacted>\\\"}" },
		{ "a=1&api_key=k3y&b=2", "a=1&api_key=<redacted>&b=2" },
		{ "secret: s3", "secret: <redacted>" },
		{ "user@example.org and git@github.com:o/r", "user@example.org and git@github.com:o/r" },
		{ "eth0", "eth0" },
		{ "port=22 host=h", "port=22 host=h" },
		/* r31t: curl's user option in every spelling getopt takes; the user kept */
		{ "curl -ualice:pw1 --user=bob:pw2 -U c:pw3 --proxy-user=d:pw4 -sSue:pw5",
		  "curl -ualice:<redacted> --user=bob:<redacted> -U c:<redacted> --proxy-user=d:<redacted> -sSue:<redacted>" },
		{ "curl --user-agent=a:b -ualice -D k:v", "curl --user-agent=a:b -ualice -D k:v" },
		/* base64 of user:password unpadded, URL-safe, with echo's newline; non-canonical unused bits kept */
		{ "x YWxpY2U6aHVudGVyMg y", "x <redacted> y" },
		{ "YWxpY2U6aHVudGVyMgo=", "<redacted>" },
		{ "Ym9iOnB3P0I2ND5Vcmx-RDQ", "<redacted>" },
		{ "YWxpY2U6aHVudGVyMh", "YWxpY2U6aHVudGVyMh" },
		/* JWE, and a token shape with an exact length */
		{ "t eyJhbGciOiJkaXIifQ..aXY.Y3Q.dGFn.", "t <redacted>." },
		{ "dapi0123456789abcdef0123456789abcdef-2 dapi_version", "<redacted>-2 dapi_version" },
		/* r31N B7: a quoted value holding a space, up to its closing quote (kept) */
		{ "curl --user=\"alice:a b\" -u 'bob:c d' -u e:'f g' x",
		  "curl --user=\"alice:<redacted>\" -u 'bob:<redacted>' -u e:'<redacted>' x" },
		{ "tool --password 'a\\' b' -p \"c \\\" d\" y", "tool --password '<redacted>' -p \"c \\\" d\" y" },
		{ "mysql -p'a b' -h h", "mysql -p'<redacted>' -h h" },
		{ "X='1' PASSWORD='a'\\''b c' y", "X='1' PASSWORD='<redacted>' y" },
		{ "curl -d \"password=a b\" -H 'X-Api-Key: c d' z", "curl -d \"password=<redacted>\" -H 'X-Api-Key: <redacted>' z" },
		{ "\"https://u:p q@h/x\" \"u:p q@db:1\" z", "\"https://<redacted>@h/x\" \"<redacted>@db:1\" z" },
		{ "curl -u \"u:a b", "curl -u \"u:<redacted>" },
		/* r31N B8: a YAML block scalar's lines, more indented than its key */
		{ "password: |\n  a\n\n  b\nuser: u", "password: |\n  <redacted>\n\n  <redacted>\nuser: u" },
		{ "- token: >-\n    a\n  k: v", "- token: >-\n    <redacted>\n  k: v" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *r = scrub_redact_value(cases[i][0]);

		assert_string_equal(r, cases[i][1]);
		free(r);
	}
}

/* tests/fixtures/rocm of the repository, made absolute before a test changes directory */
static char *fixtures;

/* A recorded output of a ROCm tool (tests/fixtures/rocm/), NUL-terminated; the caller frees. */
static char *fixture(const char *name)
{
	char *path = xstrfmt("%s/%s", fixtures, name), *buf = NULL;
	size_t len;

	assert_int_equal(fs_read_file(&buf, &len, path, 1u << 20), 0);
	free(path);
	return buf;
}

static void test_amdsmi_outputs_give_gpus_with_xgmi_links(void **state)
{
	char *st = fixture("amd-smi-static.json"), *me = fixture("amd-smi-metric.json"), *to = fixture("amd-smi-topology.json");
	char *wrapped = xstrfmt("{\"gpu_data\": %s}", st);
	json_t *g = envcap_parse_amdsmi(st, me, to), *g0, *g1, *w;

	(void)state;
	assert_non_null(g);
	assert_int_equal(json_array_size(g), 2);
	g0 = json_array_get(g, 0);
	g1 = json_array_get(g, 1);
	assert_string_equal(json_string_value(json_object_get(g0, "name")), "AMD Instinct MI300X");
	assert_string_equal(json_string_value(json_object_get(g0, "gfx_target")), "gfx942");
	assert_string_equal(json_string_value(json_object_get(g0, "vbios")), "022.040.003.043.000001");
	assert_string_equal(json_string_value(json_object_get(g0, "vbios_part")), "113-M3000100-102");
	assert_string_equal(json_string_value(json_object_get(g0, "driver")), "6.10.5");
	assert_string_equal(json_string_value(json_object_get(g0, "pci_bus_id")), "0000:05:00.0");
	assert_int_equal(json_integer_value(json_object_get(g0, "memory_mib")), 196592);
	assert_int_equal(json_integer_value(json_object_get(g0, "power_limit_w")), 750);
	assert_int_equal(json_integer_value(json_object_get(g1, "power_limit_w")), 700); /* per GPU, not the first's */
	assert_int_equal(json_integer_value(json_object_get(g0, "max_sm_mhz")), 2100);
	assert_int_equal(json_integer_value(json_object_get(g0, "max_mem_mhz")), 1300);
	/* the link to itself is left out; the state of each XGMI link is kept (GPU 1 sees its link down) */
	assert_int_equal(json_array_size(json_object_get(g0, "links")), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(g0, "links"), 0), "type")), "XGMI");
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(g0, "links"), 0), "status")),
			    "ENABLED");
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(g1, "links"), 0), "status")),
			    "DISABLED");
	assert_string_equal(json_string_value(json_object_get(g1, "vbios_part")), "113-M3000100-102");
	json_decref(g);
	/* newer releases wrap the list: the same GPUs; without metric and topology the clocks and links are null */
	g = envcap_parse_amdsmi(wrapped, NULL, NULL);
	assert_int_equal(json_array_size(g), 2);
	w = json_array_get(g, 1);
	assert_string_equal(json_string_value(json_object_get(w, "gfx_target")), "gfx942");
	assert_true(json_is_null(json_object_get(w, "max_sm_mhz")));
	assert_true(json_is_null(json_object_get(w, "links")));
	json_decref(g);
	assert_null(envcap_parse_amdsmi("[]", NULL, NULL));
	assert_null(envcap_parse_amdsmi("not json", NULL, NULL));
	free(wrapped);
	free(st);
	free(me);
	free(to);
}

static void test_rocmsmi_json_gives_gpus_with_topology(void **state)
{
	char *rs = fixture("rocm-smi.json"), *tp = fixture("rocm-smi-topo.json");
	json_t *g = envcap_parse_rocmsmi(rs, tp), *g0, *l;

	(void)state;
	assert_non_null(g);
	assert_int_equal(json_array_size(g), 2);
	g0 = json_array_get(g, 0);
	assert_string_equal(json_string_value(json_object_get(g0, "name")), "AMD Instinct MI300X");
	assert_string_equal(json_string_value(json_object_get(g0, "gfx_target")), "gfx942");
	assert_string_equal(json_string_value(json_object_get(g0, "vbios")), "113-M3000100-102");
	assert_string_equal(json_string_value(json_object_get(g0, "driver")), "6.10.5"); /* from "system" */
	assert_int_equal(json_integer_value(json_object_get(g0, "memory_mib")), 205822885888LL / 1048576);
	assert_int_equal(json_integer_value(json_object_get(g0, "power_limit_w")), 750);
	assert_int_equal(json_integer_value(json_object_get(g0, "sclk_mhz")), 2100);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(g, 1), "sclk_mhz")), 132);
	l = json_array_get(json_object_get(g0, "links"), 0);
	assert_int_equal(json_integer_value(json_object_get(l, "peer")), 1);
	assert_string_equal(json_string_value(json_object_get(l, "type")), "XGMI");
	assert_int_equal(json_integer_value(json_object_get(l, "weight")), 15);
	assert_int_equal(json_integer_value(json_object_get(l, "hops")), 1);
	json_decref(g);
	assert_null(envcap_parse_rocmsmi("{\"system\": {\"Driver version\": \"6.10.5\"}}", NULL));
	free(rs);
	free(tp);
}

static void test_rocminfo_lists_gpu_agents_only(void **state)
{
	char *ri = fixture("rocminfo.txt");
	json_t *r = envcap_parse_rocminfo(ri), *a = json_object_get(r, "agents"), *a0;

	(void)state;
	assert_string_equal(json_string_value(json_object_get(r, "runtime_version")), "1.14");
	assert_int_equal(json_array_size(a), 2); /* the CPU agent is not a GPU */
	a0 = json_array_get(a, 0);
	assert_string_equal(json_string_value(json_object_get(a0, "gfx_target")), "gfx942");
	assert_string_equal(json_string_value(json_object_get(a0, "name")), "AMD Instinct MI300X");
	assert_string_equal(json_string_value(json_object_get(a0, "uuid")), "GPU-3a1b2c3d4e5f6071");
	assert_int_equal(json_integer_value(json_object_get(a0, "compute_units")), 304);
	assert_int_equal(json_integer_value(json_object_get(a0, "max_clock_mhz")), 2100);
	assert_null(json_object_get(a0, "type"));
	json_decref(r);
	free(ri);
}

static void test_rocm_variables_are_captured(void **state)
{
	static const char *const steer[] = { "HIP_FORCE_DEV_KERNARG", "HSA_FORCE_FINE_GRAIN_PCIE", "GPU_MAX_HW_QUEUES",
					     "AMD_LOG_LEVEL", "ROCM_PATH", "RCCL_MSCCL_ENABLE", "NCCL_MIN_NCHANNELS",
					     "MIOPEN_FIND_MODE", "PYTORCH_TUNABLEOP_ENABLED", "TORCH_BLAS_PREFER_HIPBLASLT",
					     "HIPBLASLT_ALLOW_TF32", NULL };

	(void)state;
	for (size_t i = 0; steer[i]; i++)
		assert_int_equal(envcap_var_class(steer[i]), 1);
	assert_int_equal(envcap_var_class("GPUTEMP"), 0);
}

/* nvidia-smi topo -m as the driver prints it (tab-separated header with multi-word names, " X " on the diagonal,
 * an indented NIC legend): the GPU and NIC columns of each row, and the NIC names */
static void test_nvidia_topo_matrix(void **state)
{
	const char *t = "\tGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
			"GPU0\t X \tNV18\tPXB\t0-47\t0\t\tN/A\n"
			"GPU1\tNV18\t X \tSYS\t48-95\t1\t\tN/A\n"
			"NIC0\tPXB\tSYS\t X \t\t\t\t\n\nLegend:\n\n  X    = Self\n  NV#  = Connection traversing a bonded set of # NVLinks\n\n"
			"NIC Legend:\n\n  NIC0: mlx5_0\n";
	json_t *j = fabric_parse_nvidia_topo(t), *m;

	(void)state;
	assert_non_null(j);
	m = json_object_get(j, "matrix");
	assert_int_equal(json_object_size(m), 3);
	assert_string_equal(json_string_value(json_object_get(json_object_get(m, "GPU0"), "GPU1")), "NV18");
	assert_string_equal(json_string_value(json_object_get(json_object_get(m, "GPU0"), "NIC0")), "PXB");
	assert_string_equal(json_string_value(json_object_get(json_object_get(m, "GPU1"), "NIC0")), "SYS");
	assert_string_equal(json_string_value(json_object_get(json_object_get(m, "GPU1"), "GPU1")), "X");
	assert_null(json_object_get(json_object_get(m, "GPU0"), "CPU Affinity"));
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "nics"), "NIC0")), "mlx5_0");
	json_decref(j);
	assert_null(fabric_parse_nvidia_topo("No devices were found\n"));
}

/* the dump script's output, parsed (fabric_parse_dump) */
static json_t *fabric_dump_here(void)
{
	FILE *p;
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	size_t n;
	json_t *dumped;

	assert_non_null(p = popen("sh -c '" FABRIC_DUMP_SCRIPT "'", "r"));
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		strbuf_add(&sb, buf, n);
	assert_int_equal(pclose(p), 0);
	assert_non_null(strstr(sb.buf, "L\t/sys/class/net/"));
	dumped = fabric_parse_dump(sb.buf, sb.len);
	assert_non_null(dumped);
	json_object_del(dumped, "gpu_topology"); /* envcap adds nvidia-smi's matrix to its own capture; not here */
	strbuf_release(&sb);
	return dumped;
}

/* the dump a Slurm node's capture step writes, parsed, is what bench reads of the same machine itself. The machine
 * is live (a container starting elsewhere brings a bridge up): own capture between two dumps, and when the two
 * dumps differ the machine changed meanwhile and the comparison is taken again (at most 5 times) */
static void test_fabric_dump_matches_own_capture(void **state)
{
	json_t *mine = NULL, *before = NULL, *after = NULL;
	int i;

	(void)state;
	unsetenv("BENCH_SYSFS_ROOT");
	for (i = 0; i < 5; i++) {
		json_decref(mine);
		json_decref(before);
		json_decref(after);
		before = fabric_dump_here();
		mine = fabric_collect();
		after = fabric_dump_here();
		if (json_equal(before, after))
			break;
	}
	assert_true(json_object_size(json_object_get(mine, "net")) > 0);
	if (!json_equal(mine, before)) {
		char *a = json_dumps(mine, JSON_SORT_KEYS), *b = json_dumps(before, JSON_SORT_KEYS);

		fprintf(stderr, "own:  %s\ndump: %s\n", a, b);
		free(a);
		free(b);
	}
	assert_true(json_equal(before, after));
	assert_true(json_equal(mine, before));
	json_decref(mine);
	json_decref(before);
	json_decref(after);
}

/* a dump of an InfiniBand node: device, port, PCI and NUMA through the links; lines outside sysfs's classes and
 * malformed ones count for nothing; one file per node in a directory */
static void test_fabric_dump_of_another_node(void **state)
{
	const char *t = "L\t/sys/class/infiniband/mlx5_0\t../../devices/pci0000:00/0000:3b:00.0/infiniband/mlx5_0\n"
			"L\t/sys/class/infiniband/mlx5_0/device\t../../../0000:3b:00.0\n"
			"L\t/sys/class/infiniband/mlx5_0/device/driver\t../../../bus/pci/drivers/mlx5_core\n"
			"V\t/sys/class/infiniband/mlx5_0/fw_ver\t28.39.1002\n"
			"V\t/sys/class/infiniband/mlx5_0/device/numa_node\t1\n"
			"V\t/sys/class/infiniband/mlx5_0/ports/1/rate\t400 Gb/sec (4X NDR)\n"
			"V\t/sys/class/infiniband/mlx5_0/ports/1/link_layer\tInfiniBand\n"
			"D\t/sys/class/infiniband/mlx5_0/device/net/ib0\n"
			"L\t/sys/class/net/ib0\t../../devices/pci0000:00/0000:3b:00.0/net/ib0\n"
			"V\t/sys/class/net/ib0/type\t32\n"
			"V\t/etc/passwd\troot\n"
			"garbage line\n"
			"T\t\tGPU0\tNIC0\tCPU Affinity\n"
			"T\tGPU0\t X \tPXB\t0-47\n"
			"T\tNIC0\tPXB\t X \t\n"
			"T\t  NIC0: mlx5_0\n"
			"V\t/sys/class/net/ib0/mtu";
	json_t *j = fabric_parse_dump(t, strlen(t)), *m, *nodes;
	char *d, *f;

	(void)state;
	m = json_object_get(json_object_get(j, "infiniband"), "mlx5_0");
	assert_string_equal(json_string_value(json_object_get(m, "pci_device")), "0000:3b:00.0");
	assert_string_equal(json_string_value(json_object_get(m, "driver")), "mlx5_core");
	assert_string_equal(json_string_value(json_object_get(m, "firmware")), "28.39.1002");
	assert_int_equal(json_integer_value(json_object_get(m, "numa_node")), 1);
	assert_string_equal(json_string_value(json_array_get(json_object_get(m, "netdevs"), 0)), "ib0");
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(m, "ports"), "1"), "rate")),
			    "400 Gb/sec (4X NDR)");
	m = json_object_get(json_object_get(j, "net"), "ib0");
	assert_string_equal(json_string_value(json_object_get(m, "kind")), "physical");
	assert_string_equal(json_string_value(json_object_get(m, "type")), "infiniband");
	assert_null(json_object_get(m, "mtu")); /* the line without a value */
	assert_int_equal(json_object_size(json_object_get(j, "net")), 1);
	m = json_object_get(j, "gpu_topology");
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(m, "matrix"), "GPU0"), "NIC0")),
			    "PXB");
	assert_string_equal(json_string_value(json_object_get(json_object_get(m, "nics"), "NIC0")), "mlx5_0");
	json_decref(j);

	d = xstrfmt("%s/fabric", dir);
	assert_int_equal(fs_mkdir_p(d), 0);
	assert_null(fabric_collect_nodes(d));
	f = xstrfmt("%s/gpu07.txt", d);
	assert_int_equal(fs_write_file(f, t, strlen(t), 0644), 0);
	free(f);
	f = xstrfmt("%s/notes.md", d);
	assert_int_equal(fs_write_file(f, t, strlen(t), 0644), 0);
	free(f);
	assert_non_null(nodes = fabric_collect_nodes(d));
	assert_int_equal(json_object_size(nodes), 1);
	assert_non_null(json_object_get(json_object_get(json_object_get(nodes, "gpu07"), "infiniband"), "mlx5_0"));
	json_decref(nodes);
	free(d);
}

/* The writers of a run directory bench did not create: nothing written through a link, no wait on a FIFO. */
static void test_fs_writes_never_follow_a_link(void **state)
{
	char *d = xstrfmt("%s/links", dir), *victim = xstrfmt("%s/victim", dir), *p = xstrfmt("%s/a.log", d);
	char *q = xstrfmt("%s/b.json", d), *tmp = xstrfmt("%s/b.json.tmp", d), *buf = NULL;
	json_t *j = NULL;
	size_t len;
	int fd;

	(void)state;
	assert_int_equal(fs_mkdir_p(d), 0);
	assert_int_equal(fs_write_file(victim, "precious", 8, 0644), 0);
	assert_int_equal(symlink(victim, p), 0);
	errno = 0;
	assert_true(fs_open_write(p, O_APPEND, 0644) < 0 && errno == ELOOP); /* a link: refused */
	assert_string_equal(fs_open_error(ELOOP, O_NOFOLLOW), "a symbolic link (not followed)");
	unlink(p);
	assert_int_equal(mkfifo(p, 0644), 0);
	errno = 0;
	assert_true(fs_open_write(p, O_APPEND, 0644) < 0 && errno == EINVAL); /* a FIFO: refused, not waited on */
	assert_true(fs_read_file_flags(&buf, &len, p, 100, O_NOFOLLOW) < 0 && errno == EINVAL);
	assert_true(fs_load_json(&j, p, 100, 0) == BENCH_E_IO && errno == EINVAL && !j);
	unlink(p);
	assert_int_equal(link(victim, p), 0);
	errno = 0;
	assert_true(fs_open_write(p, O_APPEND, 0644) < 0 && errno == EMLINK); /* a hard link: refused, not appended to */
	assert_string_equal(fs_open_error(EMLINK, O_NOFOLLOW), "a hard link (2 names; never written through)");
	assert_true((fd = fs_open_regular(p, O_NOFOLLOW)) >= 0); /* read, as before */
	close(fd);
	unlink(p);
	assert_true((fd = fs_open_write(p, O_APPEND, 0644)) >= 0); /* absent: created */
	close(fd);
	assert_int_equal(symlink(victim, tmp), 0); /* the temporary file's name a link: replaced, not written through */
	assert_int_equal(fs_write_file(q, "{\"a\": 1}", 8, 0644), 0);
	assert_int_equal(fs_read_file(&buf, &len, victim, 100), 0);
	assert_string_equal(buf, "precious");
	free(buf);
	assert_int_equal(fs_load_json(&j, q, 100, O_NOFOLLOW), 0);
	assert_int_equal(json_integer_value(json_object_get(j, "a")), 1);
	json_decref(j);
	assert_true(fs_load_json(&j, q, 4, 0) == BENCH_E_IO && errno == EFBIG); /* larger than max: by its size */
	assert_true(fs_load_json(&j, victim, 100, 0) == BENCH_E_MANIFEST); /* not JSON */
	assert_int_equal(fs_remove_tree(d), 0);
	unlink(victim);
	free(d);
	free(victim);
	free(p);
	free(q);
	free(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_absolute_is_lexical),
		cmocka_unit_test(test_shared_path_absolute_only_when_it_exists),
		cmocka_unit_test(test_engine_failure_names_the_engine_line),
		cmocka_unit_test(test_slurm_script_refuses_line_breaks),
		cmocka_unit_test(test_redaction_policy),
		cmocka_unit_test(test_redact_value_spellings),
		cmocka_unit_test(test_amdsmi_outputs_give_gpus_with_xgmi_links),
		cmocka_unit_test(test_rocmsmi_json_gives_gpus_with_topology),
		cmocka_unit_test(test_rocminfo_lists_gpu_agents_only),
		cmocka_unit_test(test_rocm_variables_are_captured),
		cmocka_unit_test(test_nvidia_topo_matrix),
		cmocka_unit_test(test_fabric_dump_matches_own_capture),
		cmocka_unit_test(test_fabric_dump_of_another_node),
		cmocka_unit_test(test_fs_writes_never_follow_a_link),
	};
	int rc;

	if (!mkdtemp(dir))
		return 1;
	fixtures = fs_path_absolute("tests/fixtures/rocm"); /* the tests run from the repository's root */
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	free(fixtures);
	fs_remove_tree(dir); /* (the fabric test leaves its files there) */
	return rc;
}
