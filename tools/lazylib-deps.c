/* SPDX-License-Identifier: Apache-2.0 */
/* lazylib-deps.c — a program linked against the libraries bench loads on first use (cli/core/lazylib.c), never
 * installed: the Debian package's dpkg-shlibdeps reads it beside bench (debian/rules), so that Depends names
 * libgit2's and libcurl's packages as if bench linked them. It prints their versions. */
#include <curl/curl.h>
#include <git2.h>
#include <stdio.h>

int main(void)
{
	int major = 0, minor = 0, rev = 0;

	git_libgit2_version(&major, &minor, &rev);
	printf("libgit2 %d.%d.%d\n%s\n", major, minor, rev, curl_version());
	return 0;
}
