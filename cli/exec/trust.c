/* SPDX-License-Identifier: Apache-2.0 */
#include "trust.h"

#include <stdlib.h>
#include <string.h>

#include "../core/strbuf.h"
#include "../manifest/manifest.h"

/* Variables that load code into a process or change which program starts. Exact names, then prefixes (a name
 * ending in '*'). Sources: ld.so(8) and glibc's tunables, iconv(3)/gconv, python(1), bash(1) and sh(1),
 * perlrun(1), ruby(1), node(1), java(1), git(1), the Open MPI, Slurm, CUDA, ROCm, NCCL and OpenSSL documentation,
 * Debian's chromium wrapper, the Vulkan, OpenCL and EGL loaders. */
static const struct hook {
	const char *name;
	const char *why;
} hooks[] = {
	{ "LD_*", "a dynamic loader variable: loads or audits libraries in every program (ld.so)" },
	{ "GLIBC_TUNABLES", "changes glibc's allocator and loader in every program" },
	{ "MALLOC_*", "glibc malloc's checking, tracing (writes a file) and tuning in every program" },
	{ "GCONV_PATH", "loads iconv conversion modules (shared objects) into programs that convert text" },
	{ "LOCPATH", "where every program reads its locale data" },
	{ "NLSPATH", "where programs read message catalogs" },
	{ "HOSTALIASES", "rewrites host names for every resolver call" },
	{ "RESOLV_HOST_CONF", "the resolver's configuration file" },
	{ "DYLD_*", "a macOS dynamic loader variable: loads libraries" },
	{ "PATH", "which program a command name starts" },
	{ "HOME", "where programs read their start-up files (~/.bashrc, ~/.gitconfig, ~/.local site-packages)" },
	{ "XDG_CONFIG_HOME", "where programs read their configuration" },
	{ "XDG_CONFIG_DIRS", "where programs read their configuration" },
	{ "PYTHONPATH", "Python imports modules (sitecustomize, .pth) from there before any other" },
	{ "PYTHONHOME", "Python's standard library taken from there" },
	{ "PYTHONSTARTUP", "a file Python runs at start (interactive)" },
	{ "PYTHONWARNINGS", "Python imports the module a warning filter names, at start" },
	{ "PYTHONBREAKPOINT", "Python imports and calls what it names on breakpoint()" },
	{ "PYTHONUSERBASE", "Python's user site-packages (and their .pth files) from there" },
	{ "PYTHONPLATLIBDIR", "where Python finds its platform modules" },
	{ "PYTHONEXECUTABLE", "what Python takes as its own executable" },
	{ "PYTHONINSPECT", "Python enters an interactive prompt after the script" },
	{ "PYTHONPYCACHEPREFIX", "Python loads byte code from there" },
	{ "PYTHONSAFEPATH", "changes where Python imports the script's modules from" },
	{ "BASH_ENV", "a file bash runs at the start of every script" },
	{ "ENV", "a file sh runs at start" },
	{ "BASH_FUNC_*", "a function bash defines (and runs in place of a command) in every script" },
	{ "PROMPT_COMMAND", "a command bash runs before each prompt" },
	{ "PS4", "expanded (command substitution included) by every traced shell" },
	{ "SHELLOPTS", "shell options of every bash script" },
	{ "BASHOPTS", "shell options of every bash script" },
	{ "IFS", "how every shell script splits words" },
	{ "CDPATH", "where cd in every shell script goes" },
	{ "ZDOTDIR", "where zsh reads its start-up files" },
	{ "PERL5OPT", "options (-M: a module loaded) of every perl" },
	{ "PERL5LIB", "where perl loads modules from first" },
	{ "PERLLIB", "where perl loads modules from first" },
	{ "PERL5DB", "the debugger code perl runs with -d" },
	{ "RUBYOPT", "options (-r: a library loaded) of every ruby" },
	{ "RUBYLIB", "where ruby loads libraries from first" },
	{ "NODE_OPTIONS", "options (--require: a module loaded) of every node" },
	{ "NODE_PATH", "where node loads modules from" },
	{ "JAVA_TOOL_OPTIONS", "options (-javaagent: code loaded) of every JVM" },
	{ "_JAVA_OPTIONS", "options of every JVM" },
	{ "JDK_JAVA_OPTIONS", "options of every java launcher" },
	{ "CLASSPATH", "where the JVM loads classes from" },
	{ "LUA_INIT*", "Lua code every lua runs at start" },
	{ "LUA_PATH*", "where Lua loads modules" },
	{ "LUA_CPATH*", "where Lua loads C modules" },
	{ "TCLLIBPATH", "where Tcl loads packages" },
	{ "R_PROFILE*", "R code run at start" },
	{ "BROWSER", "the command Python's webbrowser and xdg-open run" },
	{ "CHROMIUM_FLAGS", "command-line flags of every chromium (Debian's wrapper)" },
	{ "CHROMIUM_USER_FLAGS", "command-line flags of every chromium (Debian's wrapper)" },
	{ "CHROME_*", "a Chrome/Chromium variable (flags, a wrapper, a sandbox helper)" },
	{ "GOOGLE_CHROME_*", "a Chrome variable" },
	{ "MOZ_*", "a Firefox variable" },
	{ "GIT_*", "a git variable (GIT_SSH_COMMAND, GIT_CONFIG_*: commands git runs)" },
	{ "SSH_ASKPASS", "a program ssh runs" },
	{ "PAGER", "a program tools run to page output" },
	{ "EDITOR", "a program tools run to edit" },
	{ "VISUAL", "a program tools run to edit" },
	{ "CC", "the C compiler a build runs" },
	{ "CXX", "the C++ compiler a build runs" },
	{ "CPP", "the preprocessor a build runs" },
	{ "LD", "the linker a build runs" },
	{ "AR", "the archiver a build runs" },
	{ "FC", "the Fortran compiler a build runs" },
	{ "CUDACXX", "the CUDA compiler a build runs" },
	{ "HIPCXX", "the HIP compiler a build runs" },
	{ "CFLAGS", "compiler flags of a build (-fplugin, -B: code the compiler loads)" },
	{ "CXXFLAGS", "compiler flags of a build" },
	{ "CPPFLAGS", "preprocessor flags of a build" },
	{ "LDFLAGS", "linker flags of a build (-Wl,-rpath: libraries the result loads)" },
	{ "LIBS", "libraries a build links" },
	{ "MAKEFLAGS", "options of every make (SHELL=: the command make runs)" },
	{ "MFLAGS", "options of every make" },
	{ "GNUMAKEFLAGS", "options of every make" },
	{ "MAKEFILES", "makefiles every make reads first" },
	{ "PKG_CONFIG_PATH", "where a build finds its libraries' flags" },
	{ "PKG_CONFIG_LIBDIR", "where a build finds its libraries' flags" },
	{ "CMAKE_*", "a CMake variable (a toolchain file, a compiler launcher)" },
	{ "NVCC_PREPEND_FLAGS", "flags of every nvcc" },
	{ "NVCC_APPEND_FLAGS", "flags of every nvcc" },
	{ "NVCC_CCBIN", "the host compiler nvcc runs" },
	{ "CUDA_INJECTION64_PATH", "a library the CUDA driver loads into every CUDA program" },
	{ "CUDA_INJECTION32_PATH", "a library the CUDA driver loads into every CUDA program" },
	{ "NCCL_NET_PLUGIN", "a library NCCL loads" },
	{ "NCCL_TUNER_PLUGIN", "a library NCCL loads" },
	{ "NCCL_PROFILER_PLUGIN", "a library NCCL loads" },
	{ "NCCL_ENV_PLUGIN", "a library NCCL loads" },
	{ "NCCL_CONF_FILE", "a file of NCCL settings (plugins among them)" },
	{ "HSA_TOOLS_LIB", "a library the ROCm runtime loads into every HIP program" },
	{ "ROCP_TOOL_LIB*", "a library the ROCm profiler loads" },
	{ "ROCPROFILER_*", "a ROCm profiler variable (libraries it loads)" },
	{ "HIP_*", "a HIP runtime variable" },
	{ "OMPI_*", "an Open MPI variable (OMPI_MCA_plm_rsh_agent: the command mpirun runs; components it loads)" },
	{ "PMIX_*", "a PMIx variable (components it loads)" },
	{ "PRTE_*", "a PRRTE variable (the command it launches with, components it loads)" },
	{ "OPAL_*", "an Open MPI variable" },
	{ "UCX_*", "a UCX variable (modules it loads)" },
	{ "FI_PROVIDER_PATH", "libfabric providers (libraries) loaded from there" },
	{ "SBATCH_*", "an sbatch option" },
	{ "SRUN_*", "an srun option" },
	{ "SALLOC_*", "an salloc option" },
	{ "SLURM_*", "a Slurm input variable (SLURM_TASK_PROLOG: a program srun runs)" },
	{ "OPENSSL_CONF", "OpenSSL's configuration (engines and providers it loads)" },
	{ "OPENSSL_ENGINES", "where OpenSSL loads engines" },
	{ "OPENSSL_MODULES", "where OpenSSL loads providers" },
	{ "SSL_CERT_*", "which certificates TLS trusts" },
	{ "CURL_CA_BUNDLE", "which certificates curl trusts" },
	{ "REQUESTS_CA_BUNDLE", "which certificates Python requests trusts" },
	{ "PIP_*", "a pip option (an index, a trusted host, a config file)" },
	{ "GTK_MODULES", "libraries every GTK program loads" },
	{ "GTK_PATH", "where GTK programs load modules" },
	{ "GIO_EXTRA_MODULES", "libraries every GIO program loads" },
	{ "QT_PLUGIN_PATH", "where Qt programs load plugins" },
	{ "VK_*", "a Vulkan loader variable (layers and drivers it loads)" },
	{ "OCL_ICD_*", "OpenCL drivers (libraries) loaded" },
	{ "OPENCL_VENDOR_PATH", "OpenCL drivers (libraries) loaded" },
	{ "__EGL_VENDOR_LIBRARY_*", "EGL drivers (libraries) loaded" },
	{ "LIBGL_DRIVERS_PATH", "OpenGL drivers (libraries) loaded" },
	{ "LIBVA_DRIVERS_PATH", "VA-API drivers (libraries) loaded" },
	{ "TRITON_*", "a Triton variable (a cache of compiled kernels it loads, the compiler it runs)" },
	{ "TORCHINDUCTOR_*", "a TorchInductor variable (a cache of compiled code it loads, the compiler it runs)" },
	{ "TORCH_*", "a PyTorch variable" },
};

const char *trust_env_hook(const char *name)
{
	for (size_t i = 0; i < sizeof(hooks) / sizeof(*hooks); i++) {
		size_t n = strlen(hooks[i].name);

		if (hooks[i].name[n - 1] == '*' ? !strncmp(name, hooks[i].name, n - 1) : !strcmp(name, hooks[i].name))
			return hooks[i].why;
	}
	return NULL;
}

static void add(json_t *a, const char *what, const char *value)
{
	json_array_append_new(a, json_pack("{s:s, s:s}", "what", what, "value", value ? value : ""));
}

json_t *trust_exec_items(const struct manifest *m)
{
	json_t *a = json_array();
	struct strbuf sb = STRBUF_INIT;
	char *w;

	add(a, "runtime.engine", engine_names[m->runtime.engine]);
	add(a, "runtime.launcher", launcher_names[m->runtime.launcher]);
	if (m->runtime.launcher == LAUNCHER_SLURM) {
		if (m->runtime.slurm.container)
			add(a, "runtime.slurm.container", m->runtime.slurm.container);
		for (size_t i = 0; i < m->runtime.slurm.n_extra_args; i++)
			add(a, "runtime.slurm.extra_args", m->runtime.slurm.extra_args[i]);
	}
	if (m->stack.base)
		add(a, "stack.base", m->stack.base);
	for (size_t i = 0; i < m->stack.ncomponents; i++) {
		const struct component *c = &m->stack.components[i];

		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s", source_names[c->source]);
		if (c->pip)
			strbuf_addf(&sb, " %s", c->pip);
		if (c->date)
			strbuf_addf(&sb, " (date %s)", c->date);
		if (c->index)
			strbuf_addf(&sb, " from %s", c->index);
		if (c->git)
			strbuf_addf(&sb, " %s", c->git);
		if (c->ref)
			strbuf_addf(&sb, " at %s", c->ref);
		if (c->apt)
			strbuf_addf(&sb, " %s", c->apt);
		if (c->version)
			strbuf_addf(&sb, " %s", c->version);
		if (c->path)
			strbuf_addf(&sb, " %s (its libraries loaded first by every runner)", c->path);
		for (size_t k = 0; k < c->nlibs; k++)
			strbuf_addf(&sb, "%s%s", k ? ", " : " libs: ", c->libs[k]);
		w = xstrfmt("stack.components.%s", c->name);
		add(a, w, sb.buf);
		free(w);
		w = xstrfmt("stack.components.%s.build", c->name);
		for (size_t k = 0; k < c->nbuild; k++)
			add(a, w, c->build[k]);
		free(w);
	}
	for (size_t i = 0; i < m->stack.nenv; i++) {
		const char *why = trust_env_hook(m->stack.env[i].name);

		w = xstrfmt("stack.env.%s", m->stack.env[i].name);
		add(a, w, m->stack.env[i].value);
		if (why)
			json_object_set_new(json_array_get(a, json_array_size(a) - 1), "hook", json_string(why));
		free(w);
	}
	for (size_t s = 0; s < m->nsuites; s++) /* env_matrix: each value set for the runner of its cases */
		for (size_t i = 0; i < m->suites[s].nenv_matrix; i++) {
			const struct env_axis *ax = &m->suites[s].env_matrix[i];
			const char *why = trust_env_hook(ax->name);

			w = xstrfmt("suites.%s.env_matrix.%s", m->suites[s].ops->name, ax->name);
			for (size_t k = 0; k < ax->nvalues; k++) {
				add(a, w, ax->values[k]);
				if (why)
					json_object_set_new(json_array_get(a, json_array_size(a) - 1), "hook", json_string(why));
			}
			free(w);
		}
	strbuf_release(&sb);
	return a;
}
