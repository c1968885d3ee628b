/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_keygen.c — bench keygen: an Ed25519 signing key pair in $BENCH_HOME. */
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "core/opt.h"
#include "bundle/sign.h"

static const struct opt_cmd cmd = { "keygen", "[--force]",
				    "Create the Ed25519 key pair that signs bundles: $BENCH_HOME/signing.key.pem (0600) and "
				    "signing.pub.pem ($BENCH_HOME defaults to ~/.config/bench). Prints the key id." };

int cmd_keygen(int argc, char **argv)
{
	int force = 0, n, err;
	const struct opt opts[] = {
		OPT_BOOL('f', "force", &force, "replace an existing key pair"),
		OPT_END(),
	};
	char *keyid = NULL;

	n = opt_parse(argc - 1, argv + 1, opts, &cmd);
	if (n == OPT_HELP || n < 0)
		return n < 0 ? 2 : 0;
	if (n > 0)
		return cli_usage_error(cmd.name, cmd.synopsis, "'keygen' takes no arguments");
	if ((err = sign_keygen(&keyid, sign_home(), force)) < 0)
		return cli_fail(err);
	printf("%s\n", keyid);
	fprintf(stderr, "bench: key pair written to %s (key id %s)\n", sign_home(), keyid);
	free(keyid);
	return 0;
}
