/* SPDX-License-Identifier: Apache-2.0 */
/* libscan.c — a prefix's shared libraries: soname from the ELF section headers, sha256 of the bytes. */
#include "libscan.h"

#include <dirent.h>
#include <elf.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "fs.h"
#include "jsonarray.h"
#include "strbuf.h"

static int pread_all(FILE *f, unsigned long long off, void *buf, size_t len)
{
	return fseeko(f, (off_t)off, SEEK_SET) == 0 && fread(buf, 1, len, f) == len ? 0 : -1;
}

/* The .dynamic section's DT_SONAME, looked up in the string table its sh_link names. */
int libscan_soname(char *out, size_t outlen, const char *path)
{
	const char *base = strrchr(path, '/');
	FILE *f = fopen(path, "rb");
	Elf64_Ehdr eh;
	Elf64_Shdr sh, str;
	Elf64_Dyn d;
	int found = -1;

	snprintf(out, outlen, "%s", base ? base + 1 : path);
	if (!f)
		return -1;
	if (pread_all(f, 0, &eh, sizeof(eh)) < 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum > 4096)
		goto cleanup;
	found = 0; /* an ELF object: without a soname its file name stands for it */
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		if (pread_all(f, eh.e_shoff + (unsigned long long)i * sizeof(sh), &sh, sizeof(sh)) < 0 ||
		    sh.sh_type != SHT_DYNAMIC || sh.sh_link >= eh.e_shnum ||
		    pread_all(f, eh.e_shoff + (unsigned long long)sh.sh_link * sizeof(str), &str, sizeof(str)) < 0)
			continue;
		for (unsigned long long k = 0; k < sh.sh_size / sizeof(d) && k < 65536; k++) {
			char name[256] = { 0 };

			if (pread_all(f, sh.sh_offset + k * sizeof(d), &d, sizeof(d)) < 0 || d.d_tag == DT_NULL)
				break;
			if (d.d_tag != DT_SONAME || d.d_un.d_val >= str.sh_size)
				continue;
			if (fseeko(f, (off_t)(str.sh_offset + d.d_un.d_val), SEEK_SET) == 0 &&
			    fread(name, 1, sizeof(name) - 1, f) > 0 && name[0])
				snprintf(out, outlen, "%s", name);
			goto cleanup;
		}
	}
cleanup:
	fclose(f);
	return found;
}

static int is_dir(const char *p)
{
	struct stat sb;

	return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

void libscan_lib_dirs(char ***dirs, size_t *n, const char *prefix)
{
	static const char *const subs[] = { "lib", "lib64", NULL };
	size_t before = *n;

	for (size_t i = 0; subs[i]; i++) {
		char *p = xstrfmt("%s/%s", prefix, subs[i]);

		if (is_dir(p)) {
			*dirs = xrealloc(*dirs, (*n + 1) * sizeof(**dirs));
			(*dirs)[(*n)++] = p;
		} else {
			free(p);
		}
	}
	if (*n == before) {
		*dirs = xrealloc(*dirs, (*n + 1) * sizeof(**dirs));
		(*dirs)[(*n)++] = xstrdup(prefix);
	}
}

static int is_shared_object(const char *name)
{
	const char *so = strstr(name, ".so");

	return so && (so[3] == '\0' || so[3] == '.');
}

static int glob_match(const char *name, char *const *globs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fnmatch(globs[i], name, 0) == 0)
			return 1;
	return n == 0;
}

static int by_soname(const void *a, const void *b)
{
	return strcmp(json_string_value(json_object_get(*(json_t *const *)a, "soname")),
		      json_string_value(json_object_get(*(json_t *const *)b, "soname")));
}

/* One entry per soname: the file named as the soname where there is one (what the loader opens), else the first. */
static void add_lib(json_t *bysoname, const char *soname, const char *file, const char *real)
{
	json_t *have = json_object_get(bysoname, soname);
	const char *base = strrchr(file, '/');

	if (have && strcmp(base ? base + 1 : file, soname))
		return;
	json_object_set_new(bysoname, soname, json_pack("{s:s, s:s, s:s}", "soname", soname, "file", file, "real", real));
}

int libscan_dir(json_t **out, const char *prefix, char *const *globs, size_t nglobs)
{
	char **dirs = NULL;
	size_t ndirs = 0, plen = strlen(prefix);
	json_t *bysoname = json_object(), *arr = json_array(), *v;
	const char *k;
	int err = 0;

	*out = NULL;
	libscan_lib_dirs(&dirs, &ndirs, prefix);
	for (size_t i = 0; i < ndirs; i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *e;

		while (d && (e = readdir(d))) {
			char *p, real[PATH_MAX], soname[256];
			struct stat sb;
			const char *rel;

			if (e->d_name[0] == '.' || !is_shared_object(e->d_name) || !glob_match(e->d_name, globs, nglobs))
				continue;
			p = xstrfmt("%s/%s", dirs[i], e->d_name);
			rel = !strncmp(p, prefix, plen) && p[plen] == '/' ? p + plen + 1 : p;
			if (stat(p, &sb) == 0 && S_ISREG(sb.st_mode) && realpath(p, real) && libscan_soname(soname, sizeof(soname), real) == 0)
				add_lib(bysoname, soname, rel, real);
			free(p);
		}
		if (d)
			closedir(d);
	}
	json_object_foreach(bysoname, k, v) {
		char sha[65];

		if ((err = fs_sha256_file(sha, json_string_value(json_object_get(v, "real")))) < 0)
			goto cleanup;
		json_object_set_new(v, "sha256", json_string(sha));
		json_array_append(arr, v);
	}
	if (json_array_size(arr) > 1) /* sorted by soname: the same prefix gives the same bytes */
		jsonarray_sort(arr, by_soname);
	*out = json_incref(arr);
cleanup:
	for (size_t i = 0; i < ndirs; i++)
		free(dirs[i]);
	free(dirs);
	json_decref(bysoname);
	json_decref(arr);
	return err;
}
