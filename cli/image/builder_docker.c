/* builder_docker.c — builder docker: the same OCI steps as podman (builder_podman.c) through the docker CLI. */
#include "builder.h"

const struct builder_ops builder_docker = {
	.name = "docker",
	.recipe_format = "containerfile",
	.image_ref = oci_image_ref,
	.image_exists = oci_image_exists,
	.build = oci_build,
	.image_digest = oci_image_digest,
};
