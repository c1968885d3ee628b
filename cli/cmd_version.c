/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_version.c — bench version: the tool's version, its commit and every linked library's version. */
#include <stdio.h>

#include <archive.h>
#include <curl/curl.h>
#include <git2.h>
#include <jansson.h>
#include <openssl/crypto.h>
#include <yaml.h>

#include "cmd.h"
#include "core/opt.h"
#include "core/strbuf.h"
#include "version.h"

static const struct opt_cmd cmd = { "version", "[--json]", "Print bench's version, the commit it was built from, "
					"and the versions of the libraries it loaded." };

int cmd_version(int argc, char **argv)
{
	int json = 0, n, major, minor, rev;
	const struct opt opts[] = {
		OPT_BOOL(0, "json", &json, "print JSON"),
		OPT_END(),
	};
	char git[32];
	json_t *libs;

	n = opt_parse(argc - 1, argv + 1, opts, &cmd);
	if (n == OPT_HELP)
		return 0;
	if (n < 0)
		return 2;
	if (n > 0)
		return cli_usage_error(cmd.name, cmd.synopsis, "'version' takes no arguments");
	git_libgit2_version(&major, &minor, &rev);
	snprintf(git, sizeof(git), "%d.%d.%d", major, minor, rev);
	libs = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "libyaml", yaml_get_version_string(), "libgit2", git,
			 "libarchive", archive_version_details(), "openssl", OpenSSL_version(OPENSSL_VERSION),
			 "jansson", jansson_version_str(), "libcurl", curl_version());
	if (json)
		return cli_print_json(json_pack("{s:s, s:s, s:o}", "version", BENCH_VERSION, "commit", BENCH_COMMIT,
						"libraries", libs));
	printf("bench %s (commit %s)\n", BENCH_VERSION, BENCH_COMMIT);
	printf("  libyaml     %s\n", yaml_get_version_string());
	printf("  libgit2     %s\n", git);
	printf("  libarchive  %s\n", archive_version_string());
	printf("  openssl     %s\n", OpenSSL_version(OPENSSL_VERSION));
	printf("  jansson     %s\n", jansson_version_str());
	printf("  libcurl     %s\n", curl_version_info(CURLVERSION_NOW)->version);
	json_decref(libs);
	return 0;
}
