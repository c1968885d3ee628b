/* SPDX-License-Identifier: Apache-2.0 */
#include "trust.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/fs.h"
#include "core/strbuf.h"
#include "manifest/manifest.h"
#include "manifest/plugin.h"

/* Variables that load code into a process or change which program starts. Exact names, then prefixes (a name
 * ending in '*'). Sources: ld.so(8) and glibc's tunables, iconv(3)/gconv, python(1), bash(1) and sh(1),
 * perlrun(1), ruby(1), node(1), java(1), git(1), the Open MPI, Slurm, CUDA, ROCm, NCCL and OpenSSL documentation,
 * Debian's chromium wrapper, the Vulkan, OpenCL, EGL and GLX loaders, hwloc, Intel MPI, MPICH, MVAPICH, libfabric,
 * MIT Kerberos, gdk-pixbuf, the .NET host and CoreCLR, erl(1), php(1), Qt WebEngine, Guile, R's Startup, Mesa's GBM,
 * the sanitizers, vim(1) and nix-ld; clang's driver (CCC_OVERRIDE_OPTIONS), rustup, the mvn, gradle, ant and sbt
 * start scripts, sudo(8), npm-config(7), yarn, corepack, uv, poetry, conan, vcpkg, bazelisk, the AWS and Google
 * SDKs' credential files, kubectl's kubeconfig, the go command's environment, gobject-introspection, coverage.py,
 * pytest, libva, libvdpau, Mesa's loader, GNU tar, rsync, wget, Mercurial and Subversion; rbenv, nodenv, goenv,
 * pipenv, pdm, conda and mamba, numba, less. A name is exact, or a
 * prefix ("NAME*"), or a part found anywhere in the name ("*PART*": a family of variables that name plugins,
 * modules or libraries to load, whatever their prefix), or an ending ("*END"); nocase: matched whatever the case of its letters, as the
 * program reads it (npm takes npm_config_x and NPM_CONFIG_X alike). */
static const struct hook {
	const char *name;
	const char *why;
	int nocase;
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
	{ "XDG_CONFIG_HOME", "where programs read their configuration (podman's containers.conf and storage.conf: the OCI runtime, hooks and mount program it runs)" },
	{ "XDG_CONFIG_DIRS", "where programs read their configuration" },
	{ "PYTHONPATH", "Python imports modules (sitecustomize, .pth) from there before any other" },
	{ "PYTHONHOME", "Python's standard library taken from there" },
	{ "PYTHONSTARTUP", "a file Python runs at start (interactive)" },
	{ "PYTHONWARNINGS", "Python imports the module a warning filter names, at start" },
	{ "PYTHONBREAKPOINT", "Python imports and calls what it names on breakpoint()" },
	{ "_PYTHON_SYSCONFIGDATA_NAME", "Python's sysconfig imports the module it names (pip, setuptools, extension builds)" },
	{ "_PYTHON_SYSCONFIGDATA_PATH", "Python's sysconfig loads its data module from there" },
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
	{ "LDSHARED", "the command setuptools links every extension with" },
	{ "LDCXXSHARED", "the command setuptools links every C++ extension with" },
	{ "CUDAFLAGS", "CUDA compiler flags of a CMake build (-ccbin, -Xcompiler -fplugin)" },
	{ "HIPFLAGS", "HIP compiler flags of a CMake build" },
	{ "FFLAGS", "Fortran compiler flags of a build" },
	{ "FCFLAGS", "Fortran compiler flags of a build" },
	{ "LDLIBS", "libraries a build links" },
	{ "MAKE", "the make program a build runs" },
	{ "MAKELEVEL", "what make takes as its parent" },
	{ "NINJA", "the ninja program a build runs" },
	{ "MESON", "the meson program a build runs" },
	{ "CC_LD", "the linker meson runs with the C compiler" },
	{ "CXX_LD", "the linker meson runs with the C++ compiler" },
	{ "RUSTC", "the Rust compiler cargo runs" },
	{ "RUSTC_WRAPPER", "a program cargo runs in place of every rustc" },
	{ "RUSTC_WORKSPACE_WRAPPER", "a program cargo runs in place of rustc" },
	{ "RUSTDOC", "the rustdoc cargo runs" },
	{ "RUSTFLAGS", "rustc flags (-C linker=: the program that links)" },
	{ "RUSTDOCFLAGS", "rustdoc flags" },
	{ "CARGO_*", "a cargo variable (CARGO_BUILD_RUSTC_WRAPPER, CARGO_TARGET_*_LINKER: programs cargo runs)" },
	{ "HIPCC_*", "a hipcc variable (HIPCC_COMPILE_FLAGS_APPEND, HIPCC_LINK_FLAGS_APPEND: -fplugin, -B)" },
	{ "PYTORCH_NVCC", "the nvcc torch's extension builder runs" },
	{ "PYTORCH_ROCM_ARCH", "the architectures torch's extension builder compiles for" },
	{ "TCL_LIBRARY", "Tcl runs init.tcl from there at start" },
	{ "TK_LIBRARY", "Tk runs its scripts from there at start" },
	{ "DBUS_SESSION_BUS_ADDRESS", "the D-Bus address (unixexec: a program every D-Bus client starts)" },
	{ "DBUS_SYSTEM_BUS_ADDRESS", "the D-Bus address (unixexec: a program every D-Bus client starts)" },
	{ "XLA_FLAGS", "XLA's flags (dump and compiler paths, the ptxas XLA runs)" },
	{ "HF_MODULES_CACHE", "Hugging Face imports remote-code modules from there" },
	{ "HF_HOME", "Hugging Face's home (modules/: remote code it imports)" },
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
	{ "HWLOC_*", "an hwloc variable (HWLOC_PLUGINS_PATH, HWLOC_COMPONENTS: plugins mpirun and MPI programs load)" },
	{ "I_MPI_*", "an Intel MPI variable (I_MPI_OFI_LIBRARY: the libfabric library it loads)" },
	{ "MPICH_*", "an MPICH variable" },
	{ "MV2_*", "an MVAPICH variable" },
	{ "HYDRA_*", "an MPICH Hydra launcher variable (the launcher and bootstrap it runs)" },
	{ "FI_*", "a libfabric variable (providers it loads)" },
	{ "PSM2_*", "a PSM2 variable" },
	{ "PSM3_*", "a PSM3 variable" },
	{ "UCC_*", "a UCC variable (components it loads)" },
	{ "HCOLL_*", "an HCOLL variable (components it loads)" },
	{ "NVSHMEM_*", "an NVSHMEM variable (bootstrap plugins it loads)" },
	{ "CUDA_HOME", "where builds and torch's extension loader find nvcc and the CUDA libraries" },
	{ "CUDA_PATH", "where builds find nvcc and the CUDA libraries" },
	{ "CUDA_ROOT", "where builds find nvcc and the CUDA libraries" },
	{ "ROCM_PATH", "where builds and the ROCm runtime find their tools and libraries" },
	{ "ROCM_HOME", "where builds find the ROCm tools and libraries" },
	{ "HIP_PATH", "where builds find the HIP tools and libraries" },
	{ "KRB5_CONFIG", "Kerberos' configuration (plugin modules it loads)" },
	{ "KRB5_*", "a Kerberos variable (configuration, plugins)" },
	{ "__GLX_*", "a GLX vendor library (loaded into OpenGL programs)" },
	{ "__NV_*", "an NVIDIA driver variable" },
	{ "GDK_PIXBUF_*", "gdk-pixbuf loaders (libraries) named by a module file" },
	{ "GST_PLUGIN*", "GStreamer plugins (libraries) loaded" },
	{ "SASL_PATH", "SASL plugins (libraries) loaded" },
	{ "*PLUGIN*", "names plugins (libraries) a program loads" },
	{ "*INJECTION*", "names a library injected into a program" },
	{ "*TOOLS_LIB*", "names a tool library a runtime loads" },
	{ "*TOOL_LIB*", "names a tool library a runtime loads" },
	{ "AS", "the assembler a build (and gcc) runs" },
	{ "CUDAHOSTCXX", "the host compiler CUDA builds run" },
	{ "NVCC*", "an nvcc variable (flags, the host compiler it runs)" },
	{ "COMPILER_PATH", "where gcc looks for the programs it runs (as, ld, cc1) first" },
	{ "GCC_EXEC_PREFIX", "where gcc finds the programs it runs (cc1, as, collect2)" },
	{ "LIBRARY_PATH", "where the linker finds libraries (Triton and inductor link at run time)" },
	{ "CPATH", "headers every C compile reads first" },
	{ "C_INCLUDE_PATH", "headers every C compile reads first" },
	{ "CPLUS_INCLUDE_PATH", "headers every C++ compile reads first" },
	{ "OBJC_INCLUDE_PATH", "headers every compile reads first" },
	{ "DEPENDENCIES_OUTPUT", "a file every gcc compile writes" },
	{ "SUNPRO_DEPENDENCIES", "a file every gcc compile writes" },
	{ "CONFIG_SHELL", "the shell configure scripts run" },
	{ "SHELL", "the shell make and other programs run commands with" },
	{ "CCACHE_*", "a ccache variable (CCACHE_PREFIX: a program every compile runs)" },
	{ "PKG_CONFIG", "the pkg-config program a build runs" },
	{ "MPLBACKEND", "matplotlib imports the module a 'module://' backend names" },
	{ "LESSOPEN", "a command less runs on every file" },
	{ "LESSCLOSE", "a command less runs on every file" },
	{ "ACC_PROFLIB", "a profiling library the OpenACC runtime loads into the program" },
	{ "ROCBLAS_TENSILE_LIBPATH", "where rocBLAS loads its kernels (code objects) from" },
	{ "MPLCONFIGDIR", "matplotlib reads matplotlibrc from there (its backend may name a module to import)" },
	{ "*_LIBPATH*", "where libraries or code objects are loaded from" },
	{ "TMPDIR", "where programs write and load temporary files (inductor's and Triton's compiled kernels among them)" },
	{ "*PRELOAD*", "names a library loaded first" },
	{ "*_MODULE_DIR*", "where modules (libraries) are loaded from" },
	{ "*_MODULE_PATH*", "where modules (libraries) are loaded from" },
	{ "*_MODULES_PATH*", "where modules (libraries) are loaded from" },
	{ "*_MODULE_FILE*", "a file naming modules (libraries) to load" },
	{ "*_LIBRARY_PATH*", "where libraries are loaded from" },
	{ "*_LIBRARY_NAME*", "names a library to load" },
	{ "*_LIB_PATH*", "where libraries are loaded from" },
	{ "*_COMPONENT_PATH*", "where components (libraries) are loaded from" },
	{ "*_PROVIDER_PATH*", "where providers (libraries) are loaded from" },
	{ "*_DRIVERS_PATH*", "where drivers (libraries) are loaded from" },
	{ "*_DRIVER_PATH*", "where drivers (libraries) are loaded from" },
	{ "*_DRIVERS*", "names drivers (libraries) to load" },
	{ "RDMAV_*", "an rdma-core variable (RDMAV_DRIVERS: verbs providers, libraries libibverbs loads into NCCL, UCX and MPI)" },
	{ "IBV_*", "a libibverbs variable (IBV_DRIVERS: verbs providers, libraries it loads)" },
	{ "PREPEND_PATH", "apptainer puts it before PATH in the container (APPTAINERENV_PREPEND_PATH): which program a command name starts" },
	{ "APPEND_PATH", "apptainer puts it after PATH in the container (APPTAINERENV_APPEND_PATH): which program a command name starts" },
	{ "CONFIG_SITE", "a shell script every configure script runs first" },
	{ "RANLIB", "a program a build runs" },
	{ "NM", "a program a build runs" },
	{ "STRIP", "a program a build (and install -s) runs" },
	{ "OBJCOPY", "a program a build runs" },
	{ "OBJDUMP", "a program a build runs" },
	{ "READELF", "a program a build runs" },
	{ "DLLTOOL", "a program a build runs" },
	{ "INSTALL", "the install program a build runs" },
	{ "M4", "the m4 program autoconf runs" },
	{ "AUTOCONF", "the autoconf program a build runs" },
	{ "AUTOHEADER", "a program a build runs" },
	{ "AUTOMAKE", "the automake program a build runs" },
	{ "ACLOCAL", "the aclocal program a build runs" },
	{ "ACLOCAL_PATH", "where aclocal reads m4 macros (code configure runs)" },
	{ "LIBTOOL", "the libtool program a build runs" },
	{ "YACC", "the parser generator a build runs" },
	{ "BISON", "the parser generator a build runs" },
	{ "LEX", "the lexer generator a build runs" },
	{ "FLEX", "the lexer generator a build runs" },
	{ "OBJC", "the Objective-C compiler a build runs" },
	{ "OBJCXX", "the Objective-C++ compiler a build runs" },
	{ "ASM", "the assembler a CMake build runs" },
	{ "CCAS", "the assembler an automake build runs" },
	{ "PYTHON", "the Python interpreter a build (configure, meson, setup scripts) runs" },
	{ "PYTHON3", "the Python interpreter a build runs" },
	{ "PERL", "the perl interpreter a build runs" },
	{ "GO", "the go program a build runs" },
	{ "GOFLAGS", "flags of every go command (-toolexec: a program run for every tool)" },
	{ "GOTOOLCHAIN", "which Go toolchain the go command downloads and runs" },
	{ "GOROOT", "where the go command finds its tools" },
	{ "CGO_*", "a cgo variable (flags of the C compiler and linker every cgo build runs)" },
	{ "DISTCC_*", "a distcc variable (the hosts compiles are sent to, the compiler they run)" },
	{ "SCCACHE_*", "an sccache variable (a cache of compiled objects reused, the server it starts)" },
	{ "NVM_*", "a Node version manager variable (which node runs)" },
	{ "PYENV*", "a pyenv variable (which Python runs)" },
	{ "CONDA_*", "a conda variable (which environment's programs and libraries run)" },
	{ "VIRTUAL_ENV", "the Python environment whose programs and packages run" },
	{ "GEM_*", "where ruby loads gems from" },
	{ "BUNDLE_*", "a Ruby bundler variable (the Gemfile it loads)" },
	{ "JAVA_HOME", "the JVM builds and launchers run" },
	{ "JULIA_*", "a Julia variable (JULIA_DEPOT_PATH, JULIA_LOAD_PATH: code it loads)" },
	{ "DOTNET_*", "a .NET variable (DOTNET_STARTUP_HOOKS: assemblies loaded into every process; DOTNET_ROOT: the runtime)" },
	{ "CORECLR_*", "a CoreCLR variable (CORECLR_PROFILER_PATH: a profiler library loaded into every .NET process)" },
	{ "COR_*", "a .NET Framework profiler variable (COR_PROFILER_PATH: a library loaded into every process)" },
	{ "COMPlus_*", "a .NET runtime setting of every process" },
	{ "ERL_*", "an Erlang variable (ERL_AFLAGS, ERL_ZFLAGS: -eval at every VM start; ERL_LIBS: code it loads)" },
	{ "ELIXIR_ERL_OPTIONS", "options (-eval) of every Erlang VM Elixir starts" },
	{ "PHPRC", "php.ini every php reads (auto_prepend_file: code run first)" },
	{ "PHP_INI_SCAN_DIR", "ini files every php reads (auto_prepend_file, extensions loaded)" },
	{ "QTWEBENGINE*", "a Qt WebEngine variable (QTWEBENGINE_CHROMIUM_FLAGS: Chromium switches, --renderer-cmd-prefix; the renderer program)" },
	{ "GUILE_*", "a Guile variable (GUILE_LOAD_PATH, GUILE_LOAD_COMPILED_PATH: code it loads)" },
	{ "R_ENVIRON*", "a file of variables R reads at start (it may name R_PROFILE_USER: code run)" },
	{ "R_LIBS*", "where R loads packages from first" },
	{ "GBM_*", "Mesa's GBM backends (libraries) loaded" },
	{ "*SAN_SYMBOLIZER_PATH*", "the symbolizer program a sanitizer runs" },
	{ "*SAN_OPTIONS*", "a sanitizer's options (external_symbolizer_path: a program it runs)" },
	{ "GTK3_MODULES", "libraries every GTK 3 program loads" },
	{ "BASH_LOADABLES_PATH", "where bash loads builtins (shared objects) from" },
	{ "FPATH", "where zsh and ksh load autoloaded functions from" },
	{ "EXINIT", "ex commands (:! runs a program) every vi and ex runs at start" },
	{ "VIMINIT", "commands every vim runs at start" },
	{ "GVIMINIT", "commands every gvim runs at start" },
	{ "NIX_LD*", "nix-ld's dynamic loader and its libraries" },
	{ "CCC_*", "a clang driver variable (CCC_OVERRIDE_OPTIONS edits every clang's command line: +-fplugin= loads a plug-in; scan-build's CCC_CC, CCC_CXX: the compiler it runs)" },
	{ "RUSTUP_*", "a rustup variable (RUSTUP_TOOLCHAIN: the toolchain, a path too, whose cargo and rustc run; RUSTUP_HOME: where toolchains are taken from)" },
	{ "MAVEN_*", "a Maven variable (MAVEN_OPTS: options, -javaagent: among them, of the JVM mvn starts; MAVEN_ARGS: its arguments)" },
	{ "M2_HOME", "the Maven installation mvn runs" },
	{ "GRADLE_*", "a Gradle variable (GRADLE_OPTS: options, -javaagent: among them, of its JVM; GRADLE_USER_HOME: init scripts every build runs)" },
	{ "JAVA_OPTS", "options (-javaagent: code loaded) of the JVM that start scripts (gradlew, sbt, Tomcat) run" },
	{ "JVM_OPTS", "options (-javaagent: code loaded) of the JVM that start scripts run" },
	{ "JAVACMD", "the java program the mvn, gradlew and ant scripts run" },
	{ "SBT_*", "an sbt variable (SBT_OPTS: options, -javaagent: among them, of its JVM)" },
	{ "ANT_*", "an Ant variable (ANT_OPTS: options of its JVM; ANT_ARGS: its arguments, -lib: code loaded)" },
	{ "SUDO_ASKPASS", "a program sudo -A runs" },
	{ "SUDO_EDITOR", "a program sudoedit runs" },
	{ "SSH_ASKPASS_REQUIRE", "makes ssh run SSH_ASKPASS" },
	{ "NPM_CONFIG_*", "an npm setting, whatever its case (script-shell: the shell scripts run with; node-options: options of every node; an install's registry)", 1 },
	{ "YARN_*", "a Yarn setting (YARN_YARN_PATH: the script run as yarn; plug-ins; the registry)" },
	{ "COREPACK_*", "a corepack variable (which npm, yarn or pnpm it downloads and runs, from where)" },
	{ "UV_*", "a uv setting (UV_PYTHON: the interpreter it runs; UV_INDEX_URL: where packages come from; UV_CONFIG_FILE)" },
	{ "POETRY_*", "a Poetry setting (the repositories it installs from, the environment it runs)" },
	{ "CONAN_*", "a Conan variable (CONAN_HOME: the profiles and hooks, Python run at every build)" },
	{ "VCPKG_*", "a vcpkg variable (VCPKG_ROOT, VCPKG_OVERLAY_PORTS: the port scripts every build runs)" },
	{ "USE_BAZEL_VERSION", "which bazel bazelisk downloads and runs" },
	{ "BAZELISK_*", "a bazelisk variable (where bazel is downloaded from)" },
	{ "AWS_CONFIG_FILE", "the AWS configuration (credential_process: a command every AWS SDK and CLI runs)" },
	{ "AWS_SHARED_CREDENTIALS_FILE", "the AWS credentials file (a profile there may name a credential_process)" },
	{ "AWS_CA_BUNDLE", "which certificates the AWS SDKs trust" },
	{ "GOOGLE_APPLICATION_CREDENTIALS", "Google's credential file (an executable-sourced one names a command the client libraries run)" },
	{ "GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES", "lets Google's client libraries run the command a credential file names" },
	{ "KUBECONFIG", "kubectl's configuration (a user's exec: a credential command kubectl runs)" },
	{ "GOPROXY", "where the go command downloads modules (code built and run)" },
	{ "GONOSUMDB", "modules the go command downloads without checking them against the checksum database" },
	{ "GONOSUMCHECK", "modules the go command downloads without checking their checksums" },
	{ "GOSUMDB", "the checksum database the go command trusts (off: none)" },
	{ "GOINSECURE", "modules the go command fetches over plain HTTP" },
	{ "GOPRIVATE", "modules the go command fetches without the proxy and checksum database" },
	{ "GONOPROXY", "modules the go command fetches without the proxy" },
	{ "GOENV", "the go command's settings file (GOFLAGS, GOPROXY, GOTOOLCHAIN)" },
	{ "GOPATH", "where the go command keeps the modules it builds" },
	{ "GOVCS", "the version control programs the go command may run" },
	{ "GI_TYPELIB_PATH", "where gobject-introspection loads typelibs (and the libraries they name) first" },
	{ "COVERAGE_PROCESS_START", "coverage.py starts in every Python process, with the plug-ins its configuration names" },
	{ "COVERAGE_RCFILE", "coverage.py's configuration (plug-ins it imports)" },
	{ "PYTEST_ADDOPTS", "options (-p: a plug-in module imported) of every pytest" },
	{ "LIBVA_DRIVER_NAME", "the VA-API driver (NAME_drv_video.so, a relative path too) loaded" },
	{ "VDPAU_DRIVER*", "the VDPAU driver (libvdpau_NAME.so) loaded, and where from" },
	{ "MESA_LOADER_DRIVER_OVERRIDE", "the Mesa driver (NAME_dri.so) loaded into OpenGL programs" },
	{ "TAR_OPTIONS", "options of every GNU tar (--to-command, --use-compress-program, --checkpoint-action=exec: programs it runs)" },
	{ "RSYNC_RSH", "the remote shell program rsync runs" },
	{ "RSYNC_CONNECT_PROG", "a command rsync runs to connect" },
	{ "WGETRC", "wget's configuration (use_askpass: a program it runs)" },
	{ "WGET_ASKPASS", "a program wget runs" },
	{ "HGRCPATH", "Mercurial's configuration (hooks it runs, extensions it loads)" },
	{ "SVN_SSH", "the program Subversion runs for svn+ssh" },
	{ "SVN_EDITOR", "a program Subversion runs to edit" },
	{ "NODE_REPL_EXTERNAL_MODULE", "a module node loads in place of its prompt" },
	{ "NODE_EXTRA_CA_CERTS", "more certificates every node trusts" },
	{ "NODE_TLS_REJECT_UNAUTHORIZED", "0: node trusts every certificate" },
	{ "EMACSLOADPATH", "where emacs loads Lisp from first" },
	{ "MANPAGER", "a program man runs to page" },
	/* families by what they name, whatever the tool: a pager or an editor is a program started, an *ENV_ROOT the
	 * shims of a version manager (rbenv, nodenv, goenv, pyenv), a *_PYTHON* the interpreter a tool starts */
	{ "*PAGER*", "a program a tool runs to page output" },
	{ "*EDITOR*", "a program a tool runs to edit" },
	{ "*ENV_ROOT*", "a version manager's root: its shims choose which program runs" },
	{ "*_PYTHON*", "the Python a tool starts" },
	{ "HF_*", "a Hugging Face variable: where models and their remote code come from" },
	{ "TRANSFORMERS_*", "a transformers variable: where models and their remote code come from" },
	{ "CONDARC", "conda's configuration (channels, the environment's programs)" },
	{ "MAMBA_*", "a mamba variable (which environment's programs and libraries run)" },
	{ "NUMBA_*", "a numba variable (NUMBA_CUDA_DRIVER: the driver library it loads)" },
	{ "LESSKEY*", "less's key file (#env sets LESSOPEN: a command less runs)" },
	/* the twelfth review (r31N rows 22, 25): a BLAS switch, loaders of other device runtimes, tools' start-up
	 * directories. FlexiBLAS (Fedora's and EasyBuild's BLAS, behind the gemm runner's cblas) dlopens the backend
	 * FLEXIBLAS names, a library path too; the OpenCL ICD loader loads OPENCL_LAYERS; oneAPI's Unified Runtime
	 * UR_ADAPTERS_FORCE_LOAD, SYCL's SYCL_OVERRIDE_PI_*, Level Zero's ZE_ENABLE_ALT_DRIVERS, libomptarget's
	 * LIBOMPTARGET_JIT_REPLACEMENT_MODULE and the OpenMP runtime's OMP_TOOL_LIBRARIES are libraries or code
	 * linked into the program; LLVM's crash handler (Triton, inductor) runs LLVM_SYMBOLIZER_PATH; glibc's getconf
	 * runs programs from GETCONF_DIR; SDL loads SDL_DYNAMIC_API in its own place. */
	{ "FLEXIBLAS*", "a FlexiBLAS variable (FLEXIBLAS: the BLAS backend it loads, a library path too; FLEXIBLAS_LIBRARY_PATH: where backends are loaded from)" },
	{ "OPENCL_*", "an OpenCL ICD loader variable (OPENCL_LAYERS: layers, libraries loaded into every OpenCL program)" },
	{ "UR_*", "a oneAPI Unified Runtime variable (UR_ADAPTERS_FORCE_LOAD: adapter libraries it loads; UR_ENABLE_LAYERS)" },
	{ "SYCL_*", "a SYCL runtime variable (SYCL_OVERRIDE_PI_*: the plug-in libraries it loads; SYCL_CACHE_DIR: kernels it loads)" },
	{ "ZE_ENABLE_ALT_DRIVERS", "Level Zero drivers (libraries) the loader loads" },
	{ "LIBOMPTARGET_*", "an OpenMP offload variable (LIBOMPTARGET_JIT_REPLACEMENT_MODULE: code linked into every kernel; its plug-ins)" },
	{ "OMP_TOOL_LIBRARIES", "OMPT tool libraries the OpenMP runtime loads into every OpenMP program" },
	{ "*SYMBOLIZER*", "the symbolizer program LLVM's crash handler or a sanitizer runs (LLVM_SYMBOLIZER_PATH)" },
	{ "GETCONF_DIR", "where getconf finds the programs it runs (glibc)" },
	{ "SDL_DYNAMIC_API", "SDL loads the library it names in its own place" },
	{ "SDL3_DYNAMIC_API", "SDL loads the library it names in its own place" },
	{ "MIOPEN_SYSTEM_DB_PATH", "where MIOpen loads its kernel database (precompiled code objects) from" },
	{ "*IMPORT_PATH*", "where modules or plug-ins (libraries) are imported from (QML2_IMPORT_PATH: Qt Quick's plug-ins)" },
	{ "IPYTHONDIR", "IPython's profiles: start-up scripts it runs, extensions it loads" },
	{ "JUPYTER_*", "a Jupyter variable (JUPYTER_CONFIG_DIR, JUPYTER_PATH: configuration that runs code, kernels and extensions it starts)" },
	{ "VALGRIND_*", "a Valgrind variable (VALGRIND_LIB: where it loads its tools from; VALGRIND_OPTS: its options)" },
	{ "BAZEL_*", "a Bazel variable (BAZEL_SH: the shell it runs commands with; compiler flags)" },
	{ "VIMRUNTIME", "where vim loads its runtime scripts (run at start) from" },
	{ "VIM", "where vim finds its system vimrc (commands run at start)" },
	{ "ELECTRON_*", "an Electron variable (ELECTRON_RUN_AS_NODE: an Electron program runs as node, NODE_OPTIONS with it)" },
	{ "MAGICK_*", "an ImageMagick variable (MAGICK_CONFIGURE_PATH: delegates.xml, the commands it runs; coder modules)" },
	{ "AZURE_EXTENSION_DIR", "where the Azure CLI loads extensions (Python code) from" },
	{ "AZURE_CONFIG_DIR", "the Azure CLI's configuration and extensions" },
	{ "EXECIGNORE", "commands bash passes over in its PATH search: which program a name starts" },
	{ "FCEDIT", "the editor bash's fc runs" },
	{ "LESS", "less's options (+CMD: commands it runs at start)" },
	{ "R_HOME", "the R installation embedded R (rpy2) loads, with its start-up files" },
	{ "GHC_ENVIRONMENT", "a GHC package environment: the packages every ghc and ghci load" },
	{ "GHC_PACKAGE_PATH", "GHC's package databases: the packages it loads" },
	{ "LADSPA_PATH", "where audio programs load LADSPA plug-ins (libraries) from" },
	{ "LV2_PATH", "where audio programs load LV2 plug-ins (libraries) from" },
	{ "GNUPGHOME", "GnuPG's home (gpg.conf, gpg-agent.conf: the programs the agent runs)" },
	{ "PLAYWRIGHT_BROWSERS_PATH", "where Playwright takes the browsers it runs from" },
	{ "PUPPETEER_*", "a Puppeteer variable (PUPPETEER_EXECUTABLE_PATH: the browser it runs)" },
	{ "*_EXECUTABLE*", "names a program a tool runs" },
	{ "*_COMMAND*", "names a command a program runs" },
};

/* Variables that change which program the container engine or launcher runs, or where it runs it: on engines
 * podman and docker stack.env reaches the engine's own environment (its `-e NAME` takes the value from there), and
 * a Slurm job's environment reaches enroot/pyxis and apptainer, so these act on the engine itself, often as root,
 * not only on the programs in the container. Sources: containers.conf(5), podman(1) and podman-remote(1),
 * docker(1)'s environment variables, apptainer(1), enroot's configuration and pyxis' documentation. */
static const struct hook engine_hooks[] = {
	{ "CONTAINERS_*", "podman's configuration files (containers.conf: the OCI runtime, hooks and helpers it runs as its user, root)" },
	{ "CONTAINER_HOST", "which podman service (a remote machine) runs the container" },
	{ "CONTAINER_CONNECTION", "which podman service (a remote machine) runs the container" },
	{ "CONTAINER_SSHKEY", "the key podman logs in to a remote service with" },
	{ "PODMAN_*", "a podman variable" },
	{ "BUILDAH_*", "a buildah variable (how images are built)" },
	{ "REGISTRY_AUTH_FILE", "the credentials podman pulls and pushes images with" },
	{ "DOCKER_*", "a docker variable (DOCKER_HOST: which daemon runs the container; DOCKER_CONFIG: credential helpers docker runs)" },
	{ "APPTAINER_*", "an apptainer variable (APPTAINER_BIND: host paths mounted into the container; its configuration)" },
	{ "SINGULARITY_*", "a singularity variable (bind mounts, its configuration)" },
	{ "ENROOT_*", "an enroot variable (ENROOT_SYSCONF_PATH, ENROOT_CONFIG_PATH: hooks enroot runs when it starts a container)" },
	{ "PYXIS_*", "a pyxis variable (how Slurm starts the container)" },
	{ "XDG_RUNTIME_DIR", "where podman finds its service socket and runtime state" },
	/* containers/storage reads these from podman's and buildah's own environment, over storage.conf:
	 * STORAGE_OPTS=overlay.mount_program=PATH is a program the engine runs on the host (r31N row 23) */
	{ "STORAGE_DRIVER", "containers/storage's driver (podman's and buildah's image and container storage)" },
	{ "STORAGE_OPTS", "containers/storage's options (overlay.mount_program: a program podman runs on the host)" },
	{ "REGISTRIES_CONFIG_PATH", "containers/image's registries.conf: where podman pulls images (the one that runs) from" },
	{ "_CONTAINERS_*", "podman's re-exec state (it takes itself to be in its user namespace already)" },
	{ "_BUILDAH_*", "buildah's re-exec state (it takes itself to be in its user namespace already)" },
	{ "NOTIFY_SOCKET", "the sd_notify socket (a host path) podman's OCI runtime passes into the container" },
	{ "BUILDKIT_HOST", "which BuildKit daemon (a remote machine) builds the image" },
	{ "BUILDX_*", "a docker buildx variable (BUILDX_BUILDER, BUILDX_CONFIG: which builder builds the image)" },
	{ "NVIDIA_*", "an NVIDIA Container Toolkit variable: its hook (run on the host, as root) mounts the GPUs and host driver files it names into the container" },
	{ "MELLANOX_*", "an enroot hook variable: the host's InfiniBand devices it mounts into the container" },
};

/* Variables that say where compiled code is written and later loaded from (kernels, extensions, byte code): a
 * value chosen by the signer points those programs at files the signer may have placed, or shares them with
 * another user. Sources: Python's tempfile, torch.utils.cpp_extension, the CUDA JIT cache, the XDG base
 * directory specification. */
static const struct hook cache_hooks[] = {
	{ "TMP", "Python's tempfile uses it when TMPDIR is unset: where inductor and Triton write and load compiled kernels" },
	{ "TEMP", "Python's tempfile uses it when TMPDIR and TMP are unset: where compiled kernels are written and loaded" },
	{ "XDG_CACHE_HOME", "where programs keep caches (torch's compiled extensions, loaded from there)" },
	{ "XDG_DATA_HOME", "where programs keep data (plugins and extensions among them; rootless podman's images, the ones it runs)" },
	{ "XDG_DATA_DIRS", "where programs look for data (plugins and extensions among them)" },
	{ "XDG_*", "an XDG base directory (where programs keep configuration, caches and data)" },
	{ "*CACHE_PATH*", "where compiled code (kernels, JIT output) is kept and loaded from" },
	{ "*CACHE_DIR*", "where compiled code (kernels, JIT output) is kept and loaded from" },
	{ "*KERNEL_CACHE*", "where compiled kernels are kept and loaded from" },
	/* every other spelling of a cache's place (r31N row 26: the go command's GOCACHE, compiled objects linked
	 * into every build): a name that ends in CACHE (GOCACHE, GOMODCACHE, HF_HUB_CACHE), or holds CACHE_HOME,
	 * CACHE_ROOT or CACHE_FOLDER; and the go command's own places for what it builds */
	{ "*CACHE", "a cache (GOCACHE: the go command's build cache, compiled objects linked into every build)" },
	{ "*CACHE_HOME*", "where compiled code is kept and loaded from" },
	{ "*CACHE_ROOT*", "where compiled code is kept and loaded from" },
	{ "*CACHE_FOLDER*", "where compiled code is kept and loaded from" },
	{ "GOTMPDIR", "where the go command builds and links, and go run starts the program it built" },
	{ "GOBIN", "where go install puts the programs it builds (run from there by PATH)" },
	{ "DENO_DIR", "Deno's cache of the modules it compiled and loads" },
	{ "MIOPEN_USER_DB_PATH", "where MIOpen keeps its tuning databases and reads them back" },
};

/* Variables that make a program write (a log, a dump, a trace) to the path they name: a value chosen by the signer
 * makes a library in every runner truncate or append to a file of the signer's choosing, a shell start-up file
 * (~/.bashrc, ~/.profile) say, with lines that echo other values the signer set (NCCL's "NCCL_ALGO set by
 * environment to VALUE"): a command there runs in the next shell. Rather than every name, the spellings these
 * libraries use (r31N row 24): *_LOG_FILE (cuBLASLt, cuSPARSE, cuSOLVER, cuDNN's frontend, hipBLASLt), *LOGDEST
 * (cuBLAS, cuDNN), *_DEBUG_FILE (NCCL), *DUMP_FILE (NCCL's topology and graph, CUDA's core dump), *_TRACE_PATH,
 * *_BENCH_PATH, *_PROFILE_PATH (rocBLAS, rocSOLVER), the ROCm math libraries' *_LOG_* paths (rocFFT's plan, kernel
 * and tuning logs), *_OUTPUT_FILE (oneMKL's verbose output), a profiler's *_PROFILE_FILE (LLVM_PROFILE_FILE), a
 * shell's or a REPL's *HISTFILE, and their directories (*_DUMP_DIR, *_LOG_DIR, *_OUTPUT_DIR, *_TRACE_DIR); then
 * the names that spell it otherwise. Sources: the NCCL, cuBLAS, cuDNN, cuSPARSE, cuSOLVER, oneMKL, HIP (ROCclr),
 * rocBLAS, rocFFT, rocSPARSE, rocSOLVER, hipBLASLt and Kineto documentation, gcc's gcov, gprof and LLVM's profile
 * runtime, coverage.py. */
static const struct hook write_hooks[] = {
	{ "NCCL_DEBUG_FILE", "NCCL writes its debug log there (truncated first; its lines echo the other NCCL_* values)" },
	{ "*_LOG_FILE*", "a library writes its log there" },
	{ "*_LOGFILE*", "a program writes its log there" },
	{ "*LOGDEST*", "a library writes its log there (cuBLAS's, cuDNN's CUBLAS_LOGDEST_DBG, CUDNN_LOGDEST_DBG)" },
	{ "*_DEBUG_FILE*", "a library writes its debug log there" },
	{ "*DUMP_FILE*", "a library writes a dump there (NCCL's topology and graph, CUDA's GPU core dump)" },
	{ "*_DUMP_PATH*", "a library writes a dump there" },
	{ "*_TRACE_PATH*", "a library writes its trace there (rocBLAS, rocFFT, rocSPARSE, rocSOLVER)" },
	{ "*_TRACE_FILE*", "a library writes its trace there" },
	{ "*_BENCH_PATH*", "a library writes its bench log there (rocBLAS, rocFFT, rocSPARSE, rocSOLVER)" },
	{ "*_PROFILE_PATH*", "a library writes its profile log there (rocBLAS, rocFFT, rocSOLVER)" },
	{ "*_PROFILE_FILE*", "an instrumented program writes its profile there (LLVM_PROFILE_FILE)" },
	{ "*_OUTPUT_FILE*", "a library writes its output there (MKL_VERBOSE_OUTPUT_FILE)" },
	{ "*_OUTPUT_PATH*", "a program writes its output there" },
	{ "*_LOG_PATH*", "a program writes its log there" },
	{ "ROCBLAS_LOG_*", "rocBLAS writes a log there" },
	{ "ROCFFT_LOG_*", "rocFFT writes a log there" },
	{ "ROCSPARSE_LOG_*", "rocSPARSE writes a log there" },
	{ "ROCSOLVER_LOG_*", "rocSOLVER writes a log there" },
	{ "AMD_LOG_LEVEL_FILE", "the HIP runtime writes its log there" },
	{ "AMD_COMGR_REDIRECT_LOGS", "the ROCm code object manager writes its log there" },
	{ "KINETO_*", "a Kineto variable (KINETO_CONFIG: its configuration, ACTIVITIES_LOG_FILE: where it writes a trace)" },
	{ "OMP_TOOL_VERBOSE_INIT", "the OpenMP runtime writes its tool-loading log there" },
	{ "GMON_OUT_PREFIX", "a gprof-instrumented program writes its profile there" },
	{ "GCOV_PREFIX", "a gcov-instrumented program writes its .gcda files under it" },
	{ "COVERAGE_FILE", "coverage.py writes its data file there" },
	{ "SEGFAULT_OUTPUT_NAME", "glibc's libSegFault writes its report there" },
	{ "JITDUMPDIR", "oneDNN and other JIT compilers write their jitdump files there" },
	{ "*HISTFILE*", "a shell or a prompt writes its history there" },
	{ "PYTHON_HISTORY", "Python's prompt writes its history there" },
	{ "NODE_REPL_HISTORY", "node's prompt writes its history there" },
	{ "*_DUMP_DIR*", "a library writes its dumps into that directory" },
	{ "*_TRACE_DIR*", "a library writes its traces into that directory" },
	{ "*_LOG_DIR*", "a program writes its logs into that directory" },
	{ "*_OUTPUT_DIR*", "a program writes its output into that directory" },
};

static const char *hook_find(const struct hook *table, size_t n_table, const char *name)
{
	for (size_t i = 0; i < n_table; i++) {
		const char *h = table[i].name;
		size_t n = strlen(h);
		int hit;

		if (h[0] == '*' && h[n - 1] == '*') { /* "*PART*": PART anywhere in the name */
			char part[64];

			snprintf(part, sizeof(part), "%.*s", (int)(n - 2), h + 1);
			hit = strstr(name, part) != NULL;
		} else if (h[0] == '*') { /* "*END": a name that ends so */
			size_t l = strlen(name);

			hit = l >= n - 1 && !strcmp(name + l - (n - 1), h + 1);
		} else {
			hit = h[n - 1] == '*' ? !(table[i].nocase ? strncasecmp : strncmp)(name, h, n - 1)
					      : !(table[i].nocase ? strcasecmp : strcmp)(name, h);
		}
		if (hit)
			return table[i].why;
	}
	return NULL;
}

#define N_OF(a) (sizeof(a) / sizeof(*(a)))

const char *trust_env_hook_kind(const char *name, enum trust_hook *kind)
{
	const char *why;

	*kind = TRUST_HOOK_NONE;
	/* APPTAINERENV_X / SINGULARITYENV_X set X in the container: judged as X is */
	if (!strncmp(name, "APPTAINERENV_", 13) && name[13])
		return trust_env_hook_kind(name + 13, kind);
	if (!strncmp(name, "SINGULARITYENV_", 15) && name[15])
		return trust_env_hook_kind(name + 15, kind);
	if ((why = hook_find(hooks, N_OF(hooks), name)))
		*kind = TRUST_HOOK_CODE;
	else if ((why = hook_find(engine_hooks, N_OF(engine_hooks), name)))
		*kind = TRUST_HOOK_ENGINE;
	else if ((why = hook_find(cache_hooks, N_OF(cache_hooks), name)))
		*kind = TRUST_HOOK_CACHE;
	else if ((why = hook_find(write_hooks, N_OF(write_hooks), name)))
		*kind = TRUST_HOOK_WRITE;
	return why;
}

const char *trust_env_hook(const char *name)
{
	enum trust_hook kind;

	return trust_env_hook_kind(name, &kind);
}

const char *trust_hook_label(enum trust_hook kind)
{
	switch (kind) {
	case TRUST_HOOK_CODE:
		return "loads code or changes how programs start";
	case TRUST_HOOK_ENGINE:
		return "changes what the container engine or launcher runs";
	case TRUST_HOOK_CACHE:
		return "where compiled code is kept and loaded from";
	case TRUST_HOOK_WRITE:
		return "makes a program write to the path it names";
	case TRUST_HOOK_PLUGIN:
		return "runs code";
	default:
		return "";
	}
}

static void add(json_t *a, const char *what, const char *value)
{
	json_array_append_new(a, json_pack("{s:s, s:s}", "what", what, "value", value ? value : ""));
}

static void set_hook(json_t *item, enum trust_hook kind, const char *why)
{
	json_object_set_new(item, "hook", json_string(why));
	json_object_set_new(item, "hook_label", json_string(trust_hook_label(kind)));
}

/* What the lock pins for component c: what the build fetches and builds (pip installs the lock's wheels by URL
 * and sha256, git checks out the lock's commit), which may differ from what the manifest names. */
static void add_locked(json_t *a, const struct component *c, json_t *lc)
{
	char *w = xstrfmt("stack.components.%s.locked", c->name);
	const char *src = json_string_value(json_object_get(lc, "source"));
	json_t *pkgs = json_object_get(lc, "packages"), *p;
	size_t i;
	char *v;

	if (src && !strcmp(src, "git")) {
		const char *lurl = json_string_value(json_object_get(lc, "git"));

		/* the build fetches the manifest's URL at the lock's commit; a lock URL that differs is shown too */
		v = xstrfmt("git %s%s%s%s commit %s", c->git ? c->git : lurl ? lurl : "(no url)",
			    lurl && c->git && strcmp(lurl, c->git) ? " (the lock names " : "",
			    lurl && c->git && strcmp(lurl, c->git) ? lurl : "", lurl && c->git && strcmp(lurl, c->git) ? ")" : "",
			    json_string_value(json_object_get(lc, "commit")) ? json_string_value(json_object_get(lc, "commit"))
									      : "(no commit)");
		add(a, w, v);
		free(v);
	} else if (src && !strcmp(src, "path")) {
		v = xstrfmt("path %s", json_string_value(json_object_get(lc, "path")) ?
				json_string_value(json_object_get(lc, "path")) : "(none)");
		add(a, w, v);
		free(v);
	} else if (src && !strcmp(src, "apt")) {
		v = xstrfmt("apt %s %s", json_string_value(json_object_get(lc, "package")) ?
				json_string_value(json_object_get(lc, "package")) : "",
			    json_string_value(json_object_get(lc, "version")) ?
				json_string_value(json_object_get(lc, "version")) : "");
		add(a, w, v);
		free(v);
	} else {
		if (json_string_value(json_object_get(lc, "url"))) {
			v = xstrfmt("%s %s sha256 %s", src ? src : "(no source)", json_string_value(json_object_get(lc, "url")),
				    json_string_value(json_object_get(lc, "sha256")) ?
					json_string_value(json_object_get(lc, "sha256")) : "(none)");
			add(a, w, v);
			free(v);
		}
		json_array_foreach(pkgs, i, p) {
			v = xstrfmt("package %s %s: %s sha256 %s", json_string_value(json_object_get(p, "name")) ?
					json_string_value(json_object_get(p, "name")) : "?",
				    json_string_value(json_object_get(p, "version")) ?
					json_string_value(json_object_get(p, "version")) : "?",
				    json_string_value(json_object_get(p, "url")) ? json_string_value(json_object_get(p, "url"))
										  : "(no url)",
				    json_string_value(json_object_get(p, "sha256")) ?
					json_string_value(json_object_get(p, "sha256")) : "(none)");
			add(a, w, v);
			free(v);
		}
	}
	free(w);
}

/* sbatch's --export=NAME[=VALUE],...: the first name that loads code (trust_env_hook_kind()) flags the item */
static void flag_export(json_t *item, const char *list)
{
	char *dup = xstrdup(list), *save = NULL;

	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '=');
		enum trust_hook kind;
		const char *why;

		if (eq)
			*eq = 0;
		if ((why = trust_env_hook_kind(t, &kind))) {
			char *w = xstrfmt("sbatch --export sets %s: %s", t, why);

			set_hook(item, kind, w);
			free(w);
			break;
		}
	}
	free(dup);
}

/* Every plug-in of m's suites: the signer's code that the runner imports and calls (python), runs (file) or loads
 * (native), with the sha256 of the file that would be used. */
static void add_plugins(json_t *a, const struct manifest *m, json_t *lock, const char *manifest_path)
{
	json_t *pins = json_object_get(lock, "plugins");

	for (size_t s = 0; s < m->nsuites; s++)
		for (size_t k = 0; k < m->suites[s].nvalues; k++) {
			const struct param_value *v = &m->suites[s].values[k];

			for (size_t j = 0; v->plugins && j < v->n; j++) {
				const json_t *p = v->plugins[j];
				const char *kind = json_string_value(json_object_get(p, "kind"));
				const char *rel = json_string_value(json_object_get(p, "path"));
				const char *py = json_string_value(json_object_get(p, "python"));
				const char *lsha = json_string_value(json_object_get(json_object_get(pins, v->sv[j]), "sha256"));
				char *w, *val;

				if (!p) /* a built-in among the values */
					continue;
				w = xstrfmt("suites.%s.plugin.%s", m->suites[s].ops->name, v->sv[j]);
				if (rel) {
					char sha[65] = "unreadable", *path = manifest_path ? plugin_path(manifest_path, rel) : NULL;

					if (!path || fs_sha256_file(sha, path) < 0)
						snprintf(sha, sizeof(sha), "%s", "(cannot be read)");
					val = xstrfmt("%s %s sha256 %s%s%s%s (%s by the runner)", kind ? kind : "file", rel, sha,
						      lsha && strcmp(lsha, sha) ? "; the lock pins " : "",
						      lsha && strcmp(lsha, sha) ? lsha : "", lsha ? "" : "; not in the lock",
						      kind && !strcmp(kind, "native") ? "loaded" : "run");
					free(path);
				} else {
					val = xstrfmt("python %s (imported and called by the runner)", py ? py : "?");
				}
				add(a, w, val);
				set_hook(json_array_get(a, json_array_size(a) - 1), TRUST_HOOK_PLUGIN,
					 rel ? "the signer's file, from the bundle's inputs/" : "a Python module of the signer's naming");
				free(val);
				free(w);
			}
		}
}

/* sbatch's long options that take an argument, which may be the next item (Slurm 22.05's option table, a few of
 * later versions', and pyxis' --container-* options that take one); and those that take none, or one only after
 * '='. A name sbatch does not know, or an abbreviation of options of both kinds, is taken as taking none: the word
 * after it is then judged as the batch script it may be. */
static const char *const sbatch_arg_opts[] = {
	"account", "acctg-freq", "array", "batch", "bb", "bbf", "begin", "chdir", "cluster", "cluster-constraint",
	"clusters", "comment", "constraint", "container", "context", "core-spec", "cores-per-socket", "cpu-freq",
	"cpus-per-gpu", "cpus-per-task", "deadline", "delay-boot", "dependency", "distribution", "error", "exclude",
	"export", "export-file", "extra-node-info", "gid", "gpu-bind", "gpu-freq", "gpus", "gpus-per-node",
	"gpus-per-socket", "gpus-per-task", "gres", "gres-flags", "hint", "input", "job-name", "kill-on-invalid-dep",
	"licenses", "mail-type", "mail-user", "mcs-label", "mem", "mem-bind", "mem-per-cpu", "mem-per-gpu", "mincpus",
	"network", "nodefile", "nodelist", "nodes", "ntasks", "ntasks-per-core", "ntasks-per-gpu", "ntasks-per-node",
	"ntasks-per-socket", "ntasks-per-tres", "open-mode", "output", "partition", "power", "prefer", "priority",
	"profile", "qos", "reservation", "signal", "sockets-per-node", "switches", "tasks-per-node", "thread-spec",
	"threads-per-core", "time", "time-min", "tmp", "uid", "wait-all-nodes", "wckey", "wrap",
	"container-id", "extra", "segment", "tres-bind", "tres-per-task",
	"container-image", "container-mounts", "container-workdir", "container-name", "container-save", "container-env",
	NULL
};
static const char *const sbatch_flag_opts[] = {
	"contiguous", "exclusive", "get-user-env", "help", "hold", "ignore-pbs", "nice", "no-kill", "no-requeue",
	"overcommit", "oversubscribe", "parsable", "propagate", "quiet", "reboot", "requeue", "spread-job", "test-only",
	"usage", "use-min-nodes", "verbose", "version", "wait", NULL
};
/* sbatch's short options that take an argument (the rest of the item, else the next one); -k takes the rest only */
static const char sbatch_short_arg[] = "aAbBcCdDeFGiJLmMnNopqStwx";

/* 1 when the long option name (n characters, no '=') takes an argument as sbatch's getopt_long reads it: the name
 * itself, or an abbreviation of options that all take one */
static int sbatch_takes_arg(const char *name, size_t n)
{
	size_t with = 0, without = 0;

	for (size_t i = 0; sbatch_arg_opts[i]; i++) {
		if (strlen(sbatch_arg_opts[i]) == n && !strncmp(sbatch_arg_opts[i], name, n))
			return 1;
		with += n < strlen(sbatch_arg_opts[i]) && !strncmp(sbatch_arg_opts[i], name, n);
	}
	for (size_t i = 0; sbatch_flag_opts[i]; i++) {
		if (strlen(sbatch_flag_opts[i]) == n && !strncmp(sbatch_flag_opts[i], name, n))
			return 0;
		without += n < strlen(sbatch_flag_opts[i]) && !strncmp(sbatch_flag_opts[i], name, n);
	}
	return with && !without;
}

/* The sbatch options that are judged, by their long name (one ending in '-': every option named so) and short
 * letter: an abbreviation of at least min characters counts as the option, as sbatch's getopt_long takes it (and
 * an ambiguous one too: sbatch refuses those, so flagging one costs nothing). why NULL: --export, judged by the
 * names of its list (flag_export()); on_option: the option's own item is flagged, not its argument's. */
static const struct sbatch_judged {
	const char *name;
	char letter;
	size_t min;
	enum trust_hook kind;
	const char *why;
	int on_option;
} sbatch_judged[] = {
	{ "export", 0, 3, TRUST_HOOK_CODE, NULL, 0 },
	{ "export-file", 0, 7, TRUST_HOOK_CODE, "sbatch sets the job's environment from that file", 1 },
	{ "output", 'o', 2, TRUST_HOOK_WRITE, "sbatch writes the job's standard output to that file (--output)", 0 },
	{ "error", 'e', 2, TRUST_HOOK_WRITE, "sbatch writes the job's standard error to that file (--error)", 0 },
	{ "chdir", 'D', 2, TRUST_HOOK_ENGINE,
	  "the job runs in that directory (--chdir, after bench's own): its relative paths, and Python's imports from "
	  "the working directory, are found there", 0 },
	{ "container", 0, 5, TRUST_HOOK_ENGINE,
	  "Slurm runs the job in that OCI bundle (--container: its config.json names the program and its mounts)", 0 },
	{ "container-", 0, 10, TRUST_HOOK_ENGINE,
	  "a pyxis option (--container-image, --container-mounts: the image the job's steps run in, host paths mounted "
	  "into it)", 0 },
	{ "wrap", 0, 2, TRUST_HOOK_ENGINE, "sbatch runs that command as the batch script (--wrap)", 0 },
	{ "bbf", 0, 3, TRUST_HOOK_WRITE,
	  "a file of burst buffer requests (--bbf): the site's burst buffer plug-in stages files in and out (writes "
	  "them) as it says", 1 },
	{ "bb", 0, 2, TRUST_HOOK_WRITE,
	  "a burst buffer request (--bb): the site's burst buffer plug-in stages files in and out (writes them) as it "
	  "says", 0 },
};

static const struct sbatch_judged *sbatch_judged_long(const char *name, size_t n)
{
	for (size_t i = 0; i < N_OF(sbatch_judged); i++) {
		const char *j = sbatch_judged[i].name;
		size_t l = strlen(j);

		if (j[l - 1] == '-' ? n >= l && !strncmp(name, j, l) : n >= sbatch_judged[i].min && n <= l && !strncmp(name, j, n))
			return &sbatch_judged[i];
	}
	return NULL;
}

static const struct sbatch_judged *sbatch_judged_short(char c)
{
	for (size_t i = 0; i < N_OF(sbatch_judged); i++)
		if (sbatch_judged[i].letter == c)
			return &sbatch_judged[i];
	return NULL;
}

/* item names what j's argument (value) asks for */
static void sbatch_flag(json_t *item, const struct sbatch_judged *j, const char *value)
{
	if (!j)
		return;
	if (j->why)
		set_hook(item, j->kind, j->why);
	else
		flag_export(item, value);
}

/* The items of runtime.slurm.extra_args (a's items from first on), read as sbatch's getopt reads its command line
 * (they come before bench's script): an option's argument is the rest of its item ("--output=PATH", "-oPATH",
 * "-QoPATH") or the next item; the first item that is not an option ("--" ends them) is what sbatch runs as the
 * batch script, bench's script and the rest becoming its arguments, and nothing after it is an option. */
static void flag_sbatch_args(json_t *a, size_t first, char *const *args, size_t n)
{
	const struct sbatch_judged *pending = NULL;
	int want_arg = 0, options = 1;

	for (size_t i = 0; i < n; i++) {
		json_t *item = json_array_get(a, first + i);
		const char *x = args[i];

		if (want_arg) { /* the argument of the option before */
			want_arg = 0;
			sbatch_flag(item, pending, x);
			pending = NULL;
		} else if (options && !strcmp(x, "--")) {
			options = 0;
			if (i + 1 < n)
				set_hook(json_array_get(a, first + i + 1), TRUST_HOOK_ENGINE,
					 "sbatch runs this file as the batch script (the first argument after '--'); bench's script "
					 "becomes an argument of it");
		} else if (!options || !strcmp(x, ":")) { /* the script's arguments; ':' parts a heterogeneous job */
			continue;
		} else if (x[0] != '-' || !x[1]) {
			options = 0;
			set_hook(item, TRUST_HOOK_ENGINE, "sbatch runs this file as the batch script (its first argument that "
				 "is not an option); bench's script becomes an argument of it");
		} else if (x[1] == '-') {
			const char *name = x + 2;
			size_t l = strcspn(name, "=");
			const struct sbatch_judged *j = sbatch_judged_long(name, l);

			if (name[l] == '=') {
				sbatch_flag(item, j, name + l + 1);
			} else if (sbatch_takes_arg(name, l)) {
				want_arg = 1;
				pending = j;
				if (j && j->on_option) {
					sbatch_flag(item, j, NULL);
					pending = NULL;
				}
			} else if (j && j->why) { /* an option of a judged family that takes no argument */
				set_hook(item, j->kind, j->why);
			}
		} else {
			for (const char *c = x + 1; *c; c++) {
				if (strchr(sbatch_short_arg, *c)) {
					if (c[1]) {
						sbatch_flag(item, sbatch_judged_short(*c), c + 1);
					} else {
						want_arg = 1;
						pending = sbatch_judged_short(*c);
					}
					break;
				}
				if (*c == 'k') /* -k[off]: the rest is its argument */
					break;
			}
		}
	}
	if (want_arg && n) /* the last item wants an argument: bench's script is taken as it */
		set_hook(json_array_get(a, first + n - 1), TRUST_HOOK_ENGINE,
			 "its argument is bench's own script, and sbatch reads the batch script from its standard input");
}

json_t *trust_exec_items(const struct manifest *m, json_t *lock, const char *manifest_path)
{
	json_t *lcomps = json_object_get(lock, "components");
	json_t *a = json_array();
	struct strbuf sb = STRBUF_INIT;
	char *w;

	add(a, "runtime.engine", engine_names[m->runtime.engine]);
	add(a, "runtime.launcher", launcher_names[m->runtime.launcher]);
	if (m->runtime.launcher == LAUNCHER_SLURM) {
		size_t first;

		if (m->runtime.slurm.container)
			add(a, "runtime.slurm.container", m->runtime.slurm.container);
		first = json_array_size(a);
		for (size_t i = 0; i < m->runtime.slurm.n_extra_args; i++)
			add(a, "runtime.slurm.extra_args", m->runtime.slurm.extra_args[i]);
		flag_sbatch_args(a, first, m->runtime.slurm.extra_args, m->runtime.slurm.n_extra_args);
	}
	if (m->stack.base)
		add(a, "stack.base", m->stack.base);
	if (json_string_value(json_object_get(json_object_get(lock, "base"), "digest")))
		add(a, "stack.base.locked", json_string_value(json_object_get(json_object_get(lock, "base"), "digest")));
	else if (json_string_value(json_object_get(lock, "base_digest")))
		add(a, "stack.base.locked", json_string_value(json_object_get(lock, "base_digest")));
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
		if (json_object_get(lcomps, c->name))
			add_locked(a, c, json_object_get(lcomps, c->name));
		w = xstrfmt("stack.components.%s.build", c->name);
		for (size_t k = 0; k < c->nbuild; k++)
			add(a, w, c->build[k]);
		free(w);
	}
	for (size_t i = 0; i < m->stack.nenv; i++) {
		enum trust_hook kind;
		const char *why = trust_env_hook_kind(m->stack.env[i].name, &kind);

		w = xstrfmt("stack.env.%s", m->stack.env[i].name);
		add(a, w, m->stack.env[i].value);
		if (why)
			set_hook(json_array_get(a, json_array_size(a) - 1), kind, why);
		free(w);
	}
	for (size_t s = 0; s < m->nsuites; s++) /* env_matrix: each value set for the runner of its cases */
		for (size_t i = 0; i < m->suites[s].nenv_matrix; i++) {
			const struct env_axis *ax = &m->suites[s].env_matrix[i];
			enum trust_hook kind;
			const char *why = trust_env_hook_kind(ax->name, &kind);

			w = xstrfmt("suites.%s.env_matrix.%s", m->suites[s].ops->name, ax->name);
			for (size_t k = 0; k < ax->nvalues; k++) {
				add(a, w, ax->values[k]);
				if (why)
					set_hook(json_array_get(a, json_array_size(a) - 1), kind, why);
			}
			free(w);
		}
	add_plugins(a, m, lock, manifest_path);
	strbuf_release(&sb);
	return a;
}
