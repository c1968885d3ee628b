/* SPDX-License-Identifier: Apache-2.0 */
/* loaded.c — the shared libraries a runner loaded (dl_iterate_phdr), their sonames (read from the ELF file) and the
 * versions they report through their own version functions; and the libraries the stack's prefixes provide. */
#define _GNU_SOURCE /* dl_iterate_phdr, dladdr, RTLD_NOLOAD */
#include "loaded.h"

#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- ELF: DT_SONAME from the file ---------------------------------------------------------------------------- */

static int read_at(FILE *f, long off, void *buf, size_t len)
{
	return fseek(f, off, SEEK_SET) == 0 && fread(buf, 1, len, f) == len ? 0 : -1;
}

int loaded_soname(char *out, size_t outlen, const char *path)
{
	const char *base = strrchr(path, '/');
	FILE *f = fopen(path, "rb");
	Elf64_Ehdr eh;
	Elf64_Phdr ph, dyn = { 0 };
	Elf64_Dyn d;
	Elf64_Addr strtab = 0;
	Elf64_Xword soname = (Elf64_Xword)-1;
	int found = -1;

	snprintf(out, outlen, "%s", base ? base + 1 : path);
	if (!f)
		return -1;
	if (read_at(f, 0, &eh, sizeof(eh)) < 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 256)
		goto cleanup;
	for (unsigned i = 0; i < eh.e_phnum; i++)
		if (read_at(f, (long)(eh.e_phoff + i * sizeof(ph)), &ph, sizeof(ph)) == 0 && ph.p_type == PT_DYNAMIC)
			dyn = ph;
	for (Elf64_Xword k = 0; dyn.p_filesz && k < dyn.p_filesz / sizeof(d) && k < 4096; k++) {
		if (read_at(f, (long)(dyn.p_offset + k * sizeof(d)), &d, sizeof(d)) < 0 || d.d_tag == DT_NULL)
			break;
		if (d.d_tag == DT_STRTAB)
			strtab = d.d_un.d_ptr;
		else if (d.d_tag == DT_SONAME)
			soname = d.d_un.d_val;
	}
	if (!strtab || soname == (Elf64_Xword)-1)
		goto cleanup;
	/* the string table's address to its offset in the file, through the segment that loads it */
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		char name[256];

		if (read_at(f, (long)(eh.e_phoff + i * sizeof(ph)), &ph, sizeof(ph)) < 0 || ph.p_type != PT_LOAD ||
		    strtab < ph.p_vaddr || strtab >= ph.p_vaddr + ph.p_filesz)
			continue;
		memset(name, 0, sizeof(name));
		if (fseek(f, (long)(ph.p_offset + (strtab - ph.p_vaddr) + soname), SEEK_SET) == 0 &&
		    fread(name, 1, sizeof(name) - 1, f) > 0 && name[0]) {
			snprintf(out, outlen, "%s", name);
			found = 0;
		}
		break;
	}
cleanup:
	fclose(f);
	return found;
}

/* ---- versions: what a library says of itself ---------------------------------------------------------------- */

enum vkind { V_NCCL, V_CUBLASLT, V_CUDA_RT, V_CUDNN, V_STR, V_STR_SECOND, V_ROCBLAS, V_HIP_RT };

/* functions without arguments (or only an out-parameter) that need no device, handle or initialisation */
static const struct {
	const char *fn;
	enum vkind kind;
} version_fns[] = {
	{ "ncclGetVersion", V_NCCL },                   /* NCCL and RCCL: ncclResult_t (int *) */
	{ "cublasLtGetVersion", V_CUBLASLT },           /* size_t (void) */
	{ "cudnnGetVersion", V_CUDNN },                 /* size_t (void) */
	{ "cudaRuntimeGetVersion", V_CUDA_RT },         /* cudaError_t (int *) */
	{ "hipRuntimeGetVersion", V_HIP_RT },           /* hipError_t (int *) */
	{ "rocblas_get_version_string", V_ROCBLAS },    /* rocblas_status (char *, size_t) */
	{ "openblas_get_config", V_STR_SECOND },        /* char * (void): "OpenBLAS 0.3.21 DYNAMIC_ARCH ..." */
	{ "bli_info_get_version_str", V_STR },          /* const char * (void) */
	{ "gnu_get_libc_version", V_STR },              /* glibc: const char * (void) */
};

/* The version of the library loaded as `name`, asked through the first version function it defines itself
 * (a function found in one of its dependencies is not its own). */
static void library_version(char *out, size_t outlen, const char *name)
{
	void *h = dlopen(name, RTLD_LAZY | RTLD_NOLOAD);

	out[0] = '\0';
	if (!h)
		return;
	for (size_t k = 0; k < sizeof(version_fns) / sizeof(*version_fns) && !out[0]; k++) {
		void *sym = dlsym(h, version_fns[k].fn);
		Dl_info info;

		if (!sym || !dladdr(sym, &info) || !info.dli_fname || strcmp(info.dli_fname, name))
			continue;
		switch (version_fns[k].kind) {
		case V_NCCL: {
			int v = 0;

			if (((int (*)(int *))sym)(&v) == 0 && v > 0) /* NCCL_VERSION: X*10000+Y*100+Z since 2.9, X*1000+Y*100+Z before */
				snprintf(out, outlen, "%d.%d.%d", v >= 10000 ? v / 10000 : v / 1000,
					 v >= 10000 ? (v / 100) % 100 : (v / 100) % 10, v % 100);
			break;
		}
		case V_CUBLASLT:
		case V_CUDNN: {
			size_t v = ((size_t (*)(void))sym)();

			if (v >= 10000) /* cuBLASLt: major*10000 + minor*100 + patch; cuDNN 9: the same */
				snprintf(out, outlen, "%zu.%zu.%zu", v / 10000, (v / 100) % 100, v % 100);
			else if (v)
				snprintf(out, outlen, "%zu.%zu.%zu", v / 1000, (v / 100) % 10, v % 100);
			break;
		}
		case V_CUDA_RT:
		case V_HIP_RT: {
			int v = 0;

			if (((int (*)(int *))sym)(&v) != 0 || v <= 0)
				break;
			if (version_fns[k].kind == V_CUDA_RT) /* major*1000 + minor*10 */
				snprintf(out, outlen, "%d.%d", v / 1000, (v % 1000) / 10);
			else /* HIP: major*10^7 + minor*10^5 + patch */
				snprintf(out, outlen, "%d.%d.%d", v / 10000000, (v / 100000) % 100, v % 100000);
			break;
		}
		case V_ROCBLAS: {
			char buf[128] = "";

			if (((int (*)(char *, size_t))sym)(buf, sizeof(buf)) == 0)
				snprintf(out, outlen, "%s", buf);
			break;
		}
		case V_STR:
		case V_STR_SECOND: {
			const char *s = ((const char *(*)(void))sym)();
			const char *sp = s ? strchr(s, ' ') : NULL;

			if (s && version_fns[k].kind == V_STR_SECOND && sp) /* "OpenBLAS 0.3.21 ...": the second word */
				snprintf(out, outlen, "%.*s", (int)strcspn(sp + 1, " "), sp + 1);
			else if (s)
				snprintf(out, outlen, "%s", s);
			break;
		}
		}
	}
	dlclose(h);
}

/* ---- the loaded libraries ------------------------------------------------------------------------------------ */

static int has_path(json_t *arr, const char *path)
{
	size_t i;
	json_t *e;

	json_array_foreach(arr, i, e)
		if (!strcmp(json_string_value(json_object_get(e, "path")), path))
			return 1;
	return 0;
}

static int add_loaded(struct dl_phdr_info *info, size_t size, void *data)
{
	char real[PATH_MAX], soname[256], version[256];

	(void)size;
	/* the program itself has no name here; the vDSO has no file */
	if (!info->dlpi_name || info->dlpi_name[0] != '/' || !realpath(info->dlpi_name, real) || has_path(data, real))
		return 0;
	loaded_soname(soname, sizeof(soname), real);
	library_version(version, sizeof(version), info->dlpi_name);
	json_array_append_new(data, json_pack("{s:s, s:s, s:s?}", "path", real, "soname", soname, "version",
					      version[0] ? version : NULL));
	return 0;
}

json_t *loaded_libraries(void)
{
	json_t *arr = json_array();

	dl_iterate_phdr(add_loaded, arr);
	return arr;
}

/* ---- what the stack's prefixes provide ----------------------------------------------------------------------- */

static int is_shared_object(const char *name)
{
	const char *so = strstr(name, ".so");

	return so && (so[3] == '\0' || so[3] == '.');
}

json_t *loaded_stack_libs(const char *root)
{
	const char *r = root ? root : getenv("BENCH_STACK_ROOT");
	json_t *arr = json_array();
	DIR *top, *sub;
	struct dirent *c, *l, *e;

	if (!r || !*r)
		r = "/opt/stack";
	if (!(top = opendir(r)))
		return arr;
	while ((c = readdir(top))) {
		char cdir[PATH_MAX];

		if (c->d_name[0] == '.' || snprintf(cdir, sizeof(cdir), "%s/%s", r, c->d_name) >= (int)sizeof(cdir) ||
		    !(sub = opendir(cdir)))
			continue;
		while ((l = readdir(sub))) { /* lib, lib64, lib/x86_64-linux-gnu is not looked into */
			char ldir[PATH_MAX];
			DIR *ld;

			if (strncmp(l->d_name, "lib", 3) || snprintf(ldir, sizeof(ldir), "%s/%s", cdir, l->d_name) >= (int)sizeof(ldir) ||
			    !(ld = opendir(ldir)))
				continue;
			while ((e = readdir(ld))) {
				char p[PATH_MAX], real[PATH_MAX], soname[256];
				struct stat sb;

				if (e->d_name[0] == '.' || !is_shared_object(e->d_name) ||
				    snprintf(p, sizeof(p), "%s/%s", ldir, e->d_name) >= (int)sizeof(p) || stat(p, &sb) != 0 ||
				    !S_ISREG(sb.st_mode) || !realpath(p, real) || loaded_soname(soname, sizeof(soname), real) < 0)
					continue;
				json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:s}", "component", c->d_name, "path", p,
								     "real", real, "soname", soname));
			}
			closedir(ld);
		}
		closedir(sub);
	}
	closedir(top);
	return arr;
}
