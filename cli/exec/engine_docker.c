/* engine_docker.c — engine docker: the same OCI steps as podman (engine_podman.c) through the docker CLI. */
#include "exec.h"

const struct engine_ops engine_docker = {
	.name = "docker",
	.runner_argv = container_runner_argv,
	.recipe_format = "containerfile",
	.image_ref = oci_image_ref,
	.image_exists = oci_image_exists,
	.build = oci_build,
	.image_digest = oci_image_digest,
	.exec_prefix = oci_exec_prefix,
};
