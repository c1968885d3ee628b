/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lazylib.c — libgit2 and libcurl loaded when a command first calls them, not at every start of bench. Their
 * libraries and the thirty they pull in cost about half of a bench start that does not use them (--help, validate,
 * show, compare: most starts). Each function bench calls is defined here with git2.h's or curl.h's prototype (the
 * compiler checks the two agree) and calls the library's own, found with dlopen() of the soname the build linked
 * against (LAZYLIB_GIT2, LAZYLIB_CURL: the Makefile reads them from the libraries) and dlsym(). A library that cannot
 * be loaded ends the process with a message naming it, exit 1: before, the loader refused to start bench at all.
 * The Debian package's Depends still names both (debian/rules: dpkg-shlibdeps reads build/lazylib-deps, a program
 * linked against them). Ownership: the loaded libraries stay loaded until exit; nothing here is freed.
 */
#define CURL_DISABLE_TYPECHECK /* (its macros would replace curl_easy_setopt's definition below) */
#include <curl/curl.h>
#include <dlfcn.h>
#include <git2.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef LAZYLIB_GIT2
#define LAZYLIB_GIT2 "libgit2.so"
#endif
#ifndef LAZYLIB_CURL
#define LAZYLIB_CURL "libcurl.so"
#endif

struct lazylib {
	const char *soname, *name;
	void *handle;
};
static struct lazylib lazylib_git = { LAZYLIB_GIT2, "libgit2", NULL };
static struct lazylib lazylib_curl = { LAZYLIB_CURL, "libcurl", NULL };
static pthread_mutex_t lazylib_lock = PTHREAD_MUTEX_INITIALIZER;

static void *lazylib_sym(struct lazylib *l, const char *sym)
{
	char why[512] = "";
	void *f = NULL;

	pthread_mutex_lock(&lazylib_lock);
	if (!l->handle && !(l->handle = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL)))
		snprintf(why, sizeof(why), "%s", dlerror());
	else if (!(f = dlsym(l->handle, sym)))
		snprintf(why, sizeof(why), "no %s in it", sym);
	pthread_mutex_unlock(&lazylib_lock);
	if (!f) {
		fprintf(stderr, "bench: error: cannot load %s (%s), which this command needs: %s\n", l->name, l->soname,
			why);
		exit(1);
	}
	return f;
}

/* a function of lib's that returns ret; params its parameters, args their names */
#define LAZY(lib, ret, name, params, args)                                   \
	ret name params                                                      \
	{                                                                    \
		ret(*f) params = (ret(*) params)lazylib_sym(&lazylib_##lib, #name); \
		return f args;                                               \
	}
#define LAZY_VOID(lib, name, params, args)                                    \
	void name params                                                      \
	{                                                                     \
		void(*f) params = (void(*) params)lazylib_sym(&lazylib_##lib, #name); \
		f args;                                                       \
	}

LAZY_VOID(curl, curl_easy_cleanup, (CURL *curl), (curl))
LAZY(curl, CURL *, curl_easy_init, (void), ())
LAZY(curl, CURLcode, curl_easy_perform, (CURL *curl), (curl))
LAZY(curl, char *, curl_version, (void), ())
LAZY(curl, curl_version_info_data *, curl_version_info, (CURLversion stamp), (stamp))
LAZY_VOID(git, git_blob_free, (git_blob *blob), (blob))
LAZY(git, int, git_blob_lookup, (git_blob **blob, git_repository *repo, const git_oid *id), (blob, repo, id))
LAZY(git, const void *, git_blob_rawcontent, (const git_blob *blob), (blob))
LAZY(git, git_object_size_t, git_blob_rawsize, (const git_blob *blob), (blob))
LAZY_VOID(git, git_commit_free, (git_commit *commit), (commit))
LAZY(git, int, git_commit_lookup, (git_commit **commit, git_repository *repo, const git_oid *id), (commit, repo, id))
LAZY(git, int, git_commit_tree, (git_tree **tree_out, const git_commit *commit), (tree_out, commit))
LAZY(git, const git_error *, git_error_last, (void), ())
LAZY(git, int, git_index_add_bypath, (git_index *index, const char *path), (index, path))
LAZY_VOID(git, git_index_free, (git_index *index), (index))
LAZY(git, int, git_index_read, (git_index *index, int force), (index, force))
LAZY(git, int, git_index_remove_directory, (git_index *index, const char *dir, int stage), (index, dir, stage))
LAZY(git, int, git_index_write, (git_index *index), (index))
LAZY(git, int, git_index_write_tree, (git_oid *out, git_index *index), (out, index))
LAZY(git, int, git_libgit2_init, (void), ())
LAZY(git, int, git_libgit2_shutdown, (void), ())
LAZY(git, int, git_libgit2_version, (int *major, int *minor, int *rev), (major, minor, rev))
LAZY(git, int, git_oid_fromstr, (git_oid *out, const char *str), (out, str))
LAZY(git, char *, git_oid_tostr, (char *out, size_t n, const git_oid *id), (out, n, id))
LAZY(git, int, git_reference_name_to_id, (git_oid *out, git_repository *repo, const char *name), (out, repo, name))
LAZY(git, int, git_remote_connect, (git_remote *remote, git_direction direction, const git_remote_callbacks *callbacks, const git_proxy_options *proxy_opts, const git_strarray *custom_headers), (remote, direction, callbacks, proxy_opts, custom_headers))
LAZY(git, int, git_remote_create_anonymous, (git_remote **out, git_repository *repo, const char *url), (out, repo, url))
LAZY(git, int, git_remote_create_detached, (git_remote **out, const char *url), (out, url))
LAZY(git, int, git_remote_fetch, (git_remote *remote, const git_strarray *refspecs, const git_fetch_options *opts, const char *reflog_message), (remote, refspecs, opts, reflog_message))
LAZY_VOID(git, git_remote_free, (git_remote *remote), (remote))
LAZY(git, int, git_remote_ls, (const git_remote_head ***out, size_t *size, git_remote *remote), (out, size, remote))
LAZY_VOID(git, git_repository_free, (git_repository *repo), (repo))
LAZY(git, int, git_repository_index, (git_index **out, git_repository *repo), (out, repo))
LAZY(git, int, git_repository_init, (git_repository **out, const char *path, unsigned is_bare), (out, path, is_bare))
LAZY(git, int, git_repository_open, (git_repository **out, const char *path), (out, path))
LAZY(git, int, git_repository_open_bare, (git_repository **out, const char *bare_path), (out, bare_path))
LAZY(git, const char *, git_repository_path, (const git_repository *repo), (repo))
LAZY_VOID(git, git_signature_free, (git_signature *sig), (sig))
LAZY(git, int, git_signature_now, (git_signature **out, const char *name, const char *email), (out, name, email))
LAZY(git, git_filemode_t, git_tree_entry_filemode, (const git_tree_entry *entry), (entry))
LAZY(git, const git_oid *, git_tree_entry_id, (const git_tree_entry *entry), (entry))
LAZY(git, const char *, git_tree_entry_name, (const git_tree_entry *entry), (entry))
LAZY_VOID(git, git_tree_free, (git_tree *tree), (tree))
LAZY(git, int, git_tree_lookup, (git_tree **out, git_repository *repo, const git_oid *id), (out, repo, id))
LAZY(git, int, git_tree_walk, (const git_tree *tree, git_treewalk_mode mode, git_treewalk_cb callback, void *payload), (tree, mode, callback, payload))
LAZY(git, int, git_commit_create, (git_oid *id, git_repository *repo, const char *update_ref, const git_signature *author, const git_signature *committer, const char *message_encoding, const char *message, const git_tree *tree, size_t parent_count, const git_commit *parents[]), (id, repo, update_ref, author, committer, message_encoding, message, tree, parent_count, parents))

/* curl's two variadic calls: an option's argument is a long, a pointer, a function pointer or a curl_off_t by the
 * option's range (curl.h's CURLOPTTYPE_*), an information's always a pointer */
CURLcode curl_easy_setopt(CURL *curl, CURLoption option, ...)
{
	CURLcode (*f)(CURL *, CURLoption, ...) = (CURLcode(*)(CURL *, CURLoption, ...))lazylib_sym(&lazylib_curl,
												     "curl_easy_setopt");
	CURLcode rc;
	va_list ap;

	va_start(ap, option);
	if (option < CURLOPTTYPE_OBJECTPOINT)
		rc = f(curl, option, va_arg(ap, long));
	else if (option < CURLOPTTYPE_FUNCTIONPOINT)
		rc = f(curl, option, va_arg(ap, void *));
	else if (option < CURLOPTTYPE_OFF_T)
		rc = f(curl, option, va_arg(ap, void (*)(void)));
	else if (option < CURLOPTTYPE_BLOB)
		rc = f(curl, option, va_arg(ap, curl_off_t));
	else
		rc = f(curl, option, va_arg(ap, void *));
	va_end(ap);
	return rc;
}

CURLcode curl_easy_getinfo(CURL *curl, CURLINFO info, ...)
{
	CURLcode (*f)(CURL *, CURLINFO, ...) = (CURLcode(*)(CURL *, CURLINFO, ...))lazylib_sym(&lazylib_curl,
												 "curl_easy_getinfo");
	CURLcode rc;
	va_list ap;

	va_start(ap, info);
	rc = f(curl, info, va_arg(ap, void *));
	va_end(ap);
	return rc;
}
