/* test_exec.c — paths handed to engines and batch jobs (absolute, placeholders kept), and an engine's own
 * failure named with its own error line. */
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
#include "core/strbuf.h"
#include "exec/envcap.h"
#include "exec/exec.h"
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
		assert_true(envcap_is_secret(secret[i]));
	for (size_t i = 0; plain[i]; i++)
		assert_false(envcap_is_secret(plain[i]));
	assert_int_equal(envcap_var_class("NCCL_ApiKey"), 2);
	assert_int_equal(envcap_var_class("NCCL_SOCKET_IFNAME"), 1);
	assert_int_equal(envcap_var_class("AWS_SECRET_ACCESS_KEY"), 0); /* not recorded at all */
	setenv("BENCH_ENV_KEEP", "NCCL_IB_*,X", 1);
	setenv("BENCH_ENV_REDACT", "NCCL_SOCKET_IFNAME", 1);
	assert_false(envcap_is_secret("NCCL_IB_PASSWD"));
	assert_true(envcap_is_secret("NCCL_SOCKET_IFNAME"));
	unsetenv("BENCH_ENV_KEEP");
	unsetenv("BENCH_ENV_REDACT");
	u = envcap_redact_url("https://user:pw@host/x?a=b, git+ssh://git@h:1/r and http://h/p@q");
	assert_string_equal(u, "https://<redacted>@host/x?a=b, git+ssh://<redacted>@h:1/r and http://h/p@q");
	free(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_absolute_is_lexical),
		cmocka_unit_test(test_shared_path_absolute_only_when_it_exists),
		cmocka_unit_test(test_engine_failure_names_the_engine_line),
		cmocka_unit_test(test_slurm_script_refuses_line_breaks),
		cmocka_unit_test(test_redaction_policy),
	};
	char *runs;
	int rc;

	if (!mkdtemp(dir))
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	runs = xstrfmt("%s/runs", dir);
	rmdir(runs);
	rmdir(dir);
	free(runs);
	return rc;
}
