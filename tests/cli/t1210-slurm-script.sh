#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Launcher slurm's job scripts without a cluster (bench run --dry-run): the GPU/pyxis example byte for byte
# (tests/golden/slurm-2node-h200.dryrun.txt: collectives one task per GPU, training one task per node with
# every GPU), apptainer under Slurm, values written to inject staying quoted, names that are not Slurm names
# refused by the validator, and an engine/container mismatch named.
. "$(dirname "$0")/lib.sh"

expect 0 "dry run of manifests/slurm-2node-h200.yaml" "$BENCH" run --dry-run manifests/slurm-2node-h200.yaml
expect_same "the job scripts match the golden file" tests/golden/slurm-2node-h200.dryrun.txt "$T/out"

cat >"$T/evil.yaml" <<'Y'
bench: 1
name: evil-slurm
target: {vendor: cuda, nodes: 2, gpus_per_node: 4}
stack:
  base: "nvcr.io/nvidia/cuda:13.0.0-devel-ubuntu24.04"
runtime:
  engine: apptainer
  launcher: slurm
  slurm: {partition: gpu, time: "00:10:00", container: apptainer, mpi: pmi2,
          extra_args: ["--comment=$(id); rm -rf /", "--exclusive"]}
suites:
  collectives: {backend: nccl, ops: [all_reduce], min_bytes: 1MiB, max_bytes: 1MiB}
Y
expect 0 "dry run: apptainer under Slurm, arguments written to inject" "$BENCH" run --dry-run "$T/evil.yaml"
sed -n '/^#!\/bin\/sh$/,/^exec srun/p' "$T/out" >"$T/job.sh"
if sh -n "$T/job.sh" && grep -q "^exec srun '--mpi=pmi2' '--kill-on-bad-exit=1' .* 'apptainer' 'exec' '--bind' 'RUN_DIR:RUN_DIR' '--nv' 'IMAGE' '/opt/bench/build/runners/bench-coll'" "$T/job.sh" &&
	grep -qF "# submitted with the manifest's runtime.slurm.extra_args: '--comment=\$(id); rm -rf /' '--exclusive'" "$T/job.sh" &&
	grep -q "^#SBATCH --ntasks-per-node=4$" "$T/job.sh" && grep -q "^#SBATCH --gpus-per-node=4$" "$T/job.sh"; then
	ok "valid shell; srun with pmi2 runs apptainer exec --nv; extra_args only in a quoted comment (passed to sbatch as argv)"
else not_ok "apptainer job script"; show "$T/job.sh"; fi

sed 's/partition: gpu,/partition: "gpu;rm -rf \/",/' "$T/evil.yaml" >"$T/bad.yaml"
expect 3 "a partition that is not a Slurm name" "$BENCH" validate "$T/bad.yaml"
expect_err "bad.yaml:9:22: error: 'partition' must be a Slurm partition name"
# a newline in extra_args would end the comment it is written into: an #SBATCH line and a shell command of its own
sed 's/"--exclusive"\]/"--exclusive\\n#SBATCH --wrap=id\\ntouch \/tmp\/bench-pwned"]/' "$T/evil.yaml" >"$T/nl.yaml"
expect 3 "validate refuses a newline in extra_args" "$BENCH" validate "$T/nl.yaml"
expect_err "nl.yaml:10:53: error: 'extra_args entry' holds a control character (\x0a)"
expect 3 "run --dry-run refuses it too (nothing planned)" "$BENCH" run --dry-run "$T/nl.yaml"
if grep -q "^#SBATCH --wrap\|^touch" "$T/out"; then not_ok "an injected line reached a job script"; show "$T/out"; else ok "no injected line in any job script"; fi
sed 's/engine: apptainer/engine: podman/; s/container: apptainer/container: none/' "$T/evil.yaml" >"$T/mis.yaml"
expect 0 "dry run: podman under Slurm without a container runtime" "$BENCH" run --dry-run "$T/mis.yaml"
expect_out "cannot run: engine 'podman' under Slurm needs runtime.slurm.container pyxis or apptainer"
finish
