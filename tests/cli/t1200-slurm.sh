#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# serial: slurm (tests/setup/slurm.sh: the daemons, /etc/slurm, the bridge and network namespaces)
# Launcher slurm on a real two-node cluster (tests/setup/slurm.sh: slurmctld here, each slurmd in its own
# network namespace): the mpi backend's collectives across both nodes through bench run
# manifests/slurm-2node-cpu.yaml as docs/slurm.md gives it (default relative runs/), the batch script in the run directory,
# each node's fabric captured on the node (fabric.nodes in environment.json), a job sbatch refuses (exit 6 with its
# reason), a hung rank ended at the suite timeout with the records already written kept, Ctrl-C cancelling
# the job. Everything is torn down at the end.
. "$(dirname "$0")/lib.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI's components keep allocations past MPI_Finalize (see t0500)
[ -n "${ASAN_OPTIONS:-}" ] && export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
if ! sh tests/setup/slurm.sh up >"$T/setup.out" 2>&1; then
	not_ok "Slurm cluster setup"; show "$T/setup.out"; sh tests/setup/slurm.sh down; finish; exit 1
fi
trap 'sh tests/setup/slurm.sh down >/dev/null 2>&1; rm -rf "$T"' EXIT
ok "two-node Slurm cluster up ($(sinfo -h -N -o '%N:%t' | tr '\n' ' '))"
export BENCH_SLURM_POLL_MS=200

# the command exactly as docs/slurm.md gives it, from a directory holding the manifests: the default relative
# runs/ (the job's tasks start in the run directory, so every path in the batch script must be absolute)
SRC=$PWD
mkdir -p "$T/work"
cp -r manifests "$T/work/"
cd "$T/work" || exit 1
expect 0 "bench run manifests/slurm-2node-cpu.yaml" "$BENCH" run manifests/slurm-2node-cpu.yaml
D=$(head -n 1 "$T/out")
case $D in runs/slurm-2node-cpu-*) [ -d "$D" ] && ok "the run directory is printed as given: $D" || not_ok "no $D" ;;
*) not_ok "run directory '$D' is not under runs/" ;; esac
D=$PWD/$D
cd "$SRC" || exit 1
if python3 - "$D" <<'PY'
import json, sys
d = sys.argv[1]
recs = [json.loads(l) for l in open(d + "/results/collectives.jsonl")]
assert len(recs) == 40, len(recs)
for r in recs:
    e = r["extra"]
    assert r["status"] == "ok" and e["wrong"] == 0 and e["check"] == "ok", r
    assert e["nranks"] == 2 and e["nodes"] == 2 and e["node_names"] == ["node1", "node2"], e
PY
then ok "40 records, data check passed, every record ran on node1 and node2"; else not_ok "records"; fi
S="$D/slurm/collectives.sbatch"
grep -q "^#SBATCH --nodes=2$" "$S" && grep -q "^#SBATCH --partition=debug$" "$S" && grep -q "^exec srun '--mpi=pmix'" "$S" &&
	ok "the batch script is in the run directory" || { not_ok "batch script"; show "$S"; }
grep -qxF "cd '$D'" "$S" && grep -qF "'--config' '$D/cases/collectives.json'" "$S" &&
	ok "the script's cd and the runner's --config are absolute" || { not_ok "paths in the batch script"; show "$S"; }
grep -q "Slurm job [0-9]* RUNNING on node\[1-2\]" "$D/logs/collectives.log" && ok "the log follows the job to both nodes" ||
	{ not_ok "job log"; show "$D/logs/collectives.log"; }
# each node's fabric, captured on the node by the job script's step (each slurmd sees its own namespace's sysfs)
grep -q "^srun '--mpi=none' '--ntasks-per-node=1' --ntasks=\"\$SLURM_JOB_NUM_NODES\" .* sh -c 'exec >\"env/fabric/\${SLURMD_NODENAME:-\$(uname -n)}.txt\"" "$S" &&
	python3 - "$D" <<'PY' && ok "both nodes' fabric in environment.json: each its own eth0, a veth" || { not_ok "per-node fabric"; show "$D/env/environment.json"; }
import json, sys
d = sys.argv[1]
f = json.load(open(d + "/env/environment.json"))["fabric"]
nodes = f["nodes"]
assert sorted(nodes) == ["node1", "node2"], list(nodes)
for n in ("node1", "node2"):
    net = nodes[n]["net"]
    assert list(net) == ["eth0"], (n, net)
    e = net["eth0"]
    assert e["kind"] == "virtual" and e["type"] == "ether" and e["operstate"] == "up" and "peer_ifindex" in e, (n, e)
# the two veths' host ends differ: each node read its own namespace
assert nodes["node1"]["net"]["eth0"]["peer_ifindex"] != nodes["node2"]["net"]["eth0"]["peer_ifindex"], nodes
PY
expect 0 "the bundle verifies" "$BENCH" verify "$D.bench.tar.gz"

# data-parallel training across the two nodes: one task per node starts its ranks, rendezvous on node1
PYT=
torch_python && PYT=$(command -v "$PY")
cat >"$T/train.yaml" <<'Y'
bench: 1
name: slurm-2node-train-cpu
target: {vendor: cpu, nodes: 2, gpus_per_node: 1}
stack:
  env: {GLOO_SOCKET_IFNAME: eth0}
runtime: {engine: host, launcher: slurm, timeout: 3m, slurm: {partition: debug, time: "00:10:00", container: none}}
suites:
  training: {models: [tiny], precision: [fp32], seq_len: 64, steps: 4, warmup_steps: 2, compile: false, parallel: ddp}
Y
BENCH_PYTHON=$PYT expect 0 "DDP training across both nodes" "$BENCH" run -q -o "$T/runs" "$T/train.yaml"
TD=$(grep '^/' "$T/out" | head -n 1)
grep -q "^#SBATCH --ntasks-per-node=1$" "$TD/slurm/training.sbatch" && python3 - "$TD" <<'PY' && ok "one task per node; 2 ranks on 2 nodes, loss finite and falling" || { not_ok "training across nodes"; show "$TD/logs/training.log"; }
import json, math, sys
r = json.loads(open(sys.argv[1] + "/results/training.jsonl").readline())
e = r["extra"]
assert r["status"] == "ok" and e["world_size"] == 2 and e["nodes"] == 2 and e["parallel"] == "ddp", e
assert math.isfinite(e["loss_last"]) and e["loss_last"] < e["loss_first"], e
PY

# sbatch refuses: exit 6 with its reason
sed 's/partition: debug/partition: nosuch/' manifests/slurm-2node-cpu.yaml >"$T/bad.yaml"
expect 6 "a partition Slurm does not have" "$BENCH" run -q -o "$T/runs" "$T/bad.yaml"
expect_err "sbatch refused the job"
expect_err "invalid partition"

# a hung rank: ended at the suite timeout, the two records before it kept, the job gone
sed 's/timeout: 5m/timeout: 4s/' manifests/slurm-2node-cpu.yaml >"$T/hang.yaml"
BENCH_FAULT=coll-hang expect 6 "a rank that hangs" "$BENCH" run -q -o "$T/runs" "$T/hang.yaml"
H=$(grep '^/' "$T/out" | head -n 1)
[ "$(grep -c '"status":"ok"' "$H/results/collectives.jsonl")" = 2 ] && ok "the two records written before the hang are kept" ||
	{ not_ok "kept records"; show "$H/results/collectives.jsonl"; }
grep -q '"interrupted"\|"failed"' "$H/status.json" && grep -q "suite timeout" "$H/status.json" &&
	ok "the other cases are marked with the timeout" || { not_ok "status"; show "$H/status.json"; }
sleep 1
[ -z "$(squeue -h)" ] && ok "the job was cancelled" || { not_ok "job still queued"; squeue; }

# a run whose rank 1 hangs, in the background; returns once its job is RUNNING (pid in $pid)
sed 's/timeout: 5m/timeout: 60s/' manifests/slurm-2node-cpu.yaml >"$T/int.yaml"
start_hung() { # output prefix
	BENCH_FAULT=coll-hang "$BENCH" run -q -o "$T/runs" "$T/int.yaml" >"$T/$1.out" 2>"$T/$1.err" &
	pid=$!
	i=0
	while [ $i -lt 100 ] && ! squeue -h -t RUNNING | grep -q .; do sleep 0.2; i=$((i + 1)); done
	# the hang comes after two cases: wait until their records are in the run directory (on a loaded machine, with
	# other tests alongside, two seconds were not always enough), at most a minute
	i=0
	while [ $i -lt 300 ]; do
		r=$(ls -td "$T"/runs/*/ 2>/dev/null | head -n 1)
		[ -n "$r" ] && [ "$(grep -c '"status":"ok"' "${r}results/collectives.jsonl" 2>/dev/null)" = 2 ] && break
		sleep 0.2
		i=$((i + 1))
	done
	sleep 2
}

# the job cancelled from outside (an operator's scancel): the scheduler's state is the reason, records kept
start_hung ext
scancel "$(squeue -h -o %i | head -n 1)"
wait "$pid"
rc=$?
[ "$rc" = 6 ] && grep -q "ended CANCELLED" "$T/ext.err" && ok "a job cancelled outside bench: exit 6, the reason is Slurm's state" ||
	{ not_ok "external scancel (exit $rc)"; show "$T/ext.err"; }
E=$(grep '^/' "$T/ext.out" | head -n 1)
[ "$(grep -c '"status":"ok"' "$E/results/collectives.jsonl")" = 2 ] && ok "its two records are kept" || not_ok "records after scancel"

# Ctrl-C: the job is cancelled, the run marked interrupted
start_hung int
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" = 6 ] && ok "Ctrl-C ends the run with exit 6" || { not_ok "Ctrl-C exit $rc"; show "$T/int.err"; }
sleep 1
[ -z "$(squeue -h)" ] && ok "Ctrl-C cancelled the job" || { not_ok "job still queued after Ctrl-C"; squeue; }
I=$(grep '^/' "$T/int.out" | head -n 1)
grep -q '"state": *"interrupted"\|"interrupted"' "$I/status.json" && grep -q "scancel" "$I/logs/collectives.log" &&
	ok "the run is marked interrupted and the log shows scancel" || { not_ok "interrupted"; show "$I/status.json"; }
finish
