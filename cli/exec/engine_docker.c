/* SPDX-License-Identifier: Apache-2.0 */
/* engine_docker.c — engine docker: the same OCI run side as podman (engine_podman.c) through the docker CLI. */
#include "exec.h"

extern const struct builder_ops builder_docker;

const struct engine_ops engine_docker = {
	.name = "docker",
	.runner_argv = container_runner_argv,
	.builder = &builder_docker,
	.exec_prefix = oci_exec_prefix,
	.own_statuses = { 125, 126, 127 },
};
