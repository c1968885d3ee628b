/* SPDX-License-Identifier: Apache-2.0 */
/* builder_docker.c — builder docker: the same OCI steps as podman (builder_podman.c) through the docker CLI. */
#include <ctype.h>
#include <string.h>

#include "builder.h"

/* The classic builder's "Step 3/13 : RUN ...", BuildKit's plain progress "#7 [2/4] RUN ..." */
static int docker_step_line(const char *line, size_t len)
{
	size_t i = 1;

	if (len > 5 && !strncmp(line, "Step ", 5))
		return 1;
	if (!len || line[0] != '#')
		return 0;
	while (i < len && isdigit((unsigned char)line[i]))
		i++;
	return i > 1 && i + 2 < len && line[i] == ' ' && line[i + 1] == '[';
}

const struct builder_ops builder_docker = {
	.name = "docker",
	.recipe_format = "containerfile",
	.image_ref = oci_image_ref,
	.build = oci_build,
	.image_digest = oci_image_digest,
	.step_line = docker_step_line,
};
