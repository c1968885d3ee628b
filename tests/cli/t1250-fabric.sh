#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The fabric in environment.json (cli/exec/fabric.c): an InfiniBand host as a sysfs fixture (BENCH_SYSFS_ROOT),
# this machine's own interfaces with a veth pair and a bridge made in a network namespace (as root), bench
# compare listing the fabric differences of two runs, and the other nodes of a Slurm job (the job script's dump
# over the fixtures, in fabric.nodes, compared node by node).
. "$(dirname "$0")/lib.sh"
fake_gemm
cat >"$T/m.yaml" <<'Y'
bench: 1
name: fab
target: {vendor: cpu}
runtime: {engine: host}
suites:
  gemm: {dtypes: [fp32], shapes: [[32, 32, 32]]}
Y
# an InfiniBand host as sysfs shows it: mlx5_0 (NDR, port 1 active, NUMA node 1, its netdev ib0), ib0, a bridge
ib_host() { # root rate
	r=$1
	mkdir -p "$r/devices/pci0000:00/0000:3b:00.0/net/ib0" "$r/bus/pci/drivers/mlx5_core" "$r/sys/class/infiniband/mlx5_0/ports/1" \
		"$r/sys/class/net" "$r/sys/devices/virtual/net/br0/bridge" "$r/sys/devices/virtual/net/br0/brif/veth1"
	ln -s "$r/devices/pci0000:00/0000:3b:00.0" "$r/sys/class/infiniband/mlx5_0/device"
	ln -s "$r/bus/pci/drivers/mlx5_core" "$r/devices/pci0000:00/0000:3b:00.0/driver"
	echo 1 >"$r/devices/pci0000:00/0000:3b:00.0/numa_node"
	echo 28.39.1002 >"$r/sys/class/infiniband/mlx5_0/fw_ver"
	echo MT4129 >"$r/sys/class/infiniband/mlx5_0/hca_type"
	echo "1: CA" >"$r/sys/class/infiniband/mlx5_0/node_type"
	echo "4: ACTIVE" >"$r/sys/class/infiniband/mlx5_0/ports/1/state"
	echo "5: LinkUp" >"$r/sys/class/infiniband/mlx5_0/ports/1/phys_state"
	echo "$2" >"$r/sys/class/infiniband/mlx5_0/ports/1/rate"
	echo InfiniBand >"$r/sys/class/infiniband/mlx5_0/ports/1/link_layer"
	d="$r/devices/pci0000:00/0000:3b:00.0/net/ib0"
	ln -s "$r/devices/pci0000:00/0000:3b:00.0" "$d/device"
	echo 32 >"$d/type"; echo up >"$d/operstate"; echo 4092 >"$d/mtu"; echo 400000 >"$d/speed"
	echo 5 >"$d/ifindex"; echo 5 >"$d/iflink"
	ln -s "$d" "$r/sys/class/net/ib0"
	b="$r/sys/devices/virtual/net/br0"
	echo 1 >"$b/type"; echo up >"$b/operstate"; echo 1500 >"$b/mtu"; echo 7 >"$b/ifindex"; echo 7 >"$b/iflink"
	ln -s ../../devices/virtual/net/br0 "$r/sys/class/net/br0"
}
ib_host "$T/ib400" "400 Gb/sec (4X NDR)"
ib_host "$T/ib200" "200 Gb/sec (4X HDR)"
run() { # sysfs-root
	BENCH_SYSFS_ROOT=$1 BENCH_RUNNERS=$T/fake "$BENCH" run -q -o "$T/runs" "$T/m.yaml" >"$T/run.out" 2>&1 || { cat "$T/run.out"; return 1; }
	sed -n 1p "$T/run.out"
}
A=$(run "$T/ib400")
B=$(run "$T/ib200")
python3 - "$A/env/environment.json" <<'PY' && ok "the InfiniBand fixture: device, firmware, NUMA node, port rate, state, link layer; ib0 and the bridge" || not_ok "InfiniBand fixture"
import json, sys
f = json.load(open(sys.argv[1]))["fabric"]
m = f["infiniband"]["mlx5_0"]
assert m["pci_device"] == "0000:3b:00.0" and m["numa_node"] == 1 and m["driver"] == "mlx5_core" and m["firmware"] == "28.39.1002", m
assert m["ports"]["1"] == {"state": "4: ACTIVE", "phys_state": "5: LinkUp", "rate": "400 Gb/sec (4X NDR)", "link_layer": "InfiniBand"}, m
assert m["netdevs"] == ["ib0"], m
ib0 = f["net"]["ib0"]
assert ib0 == {"kind": "physical", "type": "infiniband", "operstate": "up", "mtu": 4092, "speed_mbps": 400000,
               "pci_device": "0000:3b:00.0", "numa_node": 1, "driver": "mlx5_core"}, ib0
assert f["net"]["br0"]["kind"] == "bridge" and f["net"]["br0"]["members"] == ["veth1"], f["net"]["br0"]
assert list(f["net"]) == ["br0", "ib0"]
PY
expect 0 "compare two runs on hosts with another link rate" "$BENCH" compare --format json "$A" "$B"
python3 - "$T/out" <<'PY' && ok "compare lists the port's rate as a fabric difference, not the bridge" || not_ok "fabric difference"
import json, sys
d = json.load(open(sys.argv[1]))
w = {x["what"]: x for x in d["stack_differs"]}
assert "fabric.infiniband.mlx5_0.ports.1.rate" in w, list(w)
assert w["fabric.infiniband.mlx5_0.ports.1.rate"]["baseline"] == "400 Gb/sec (4X NDR)", w
assert not [k for k in w if k.startswith("fabric.net.br0")], list(w)
PY
# the other nodes of a Slurm job: the job script's capture step (taken from a dry run's script) run over each
# fixture; a runner standing in for the job puts the dumps where the step writes them (env/fabric/NODE.txt)
"$BENCH" run --dry-run manifests/slurm-2node-h200.yaml >"$T/dry.out" 2>&1
python3 - "$T/dry.out" "$T/dump.sh" <<'PY'
import sys
t = open(sys.argv[1]).read()
a = t.index("\n", t.index("sh -c 'exec >")) + 1  # the dump program, after the line naming the file
open(sys.argv[2], "w").write(t[a:t.index("' || echo", a)])
PY
# an nvidia-smi whose topo -m puts NIC0 at $TOPO from GPU0
mkdir -p "$T/smi"
cat >"$T/smi/nvidia-smi" <<'SH'
#!/bin/sh
[ "$1 $2" = "topo -m" ] || exit 1
printf '\tGPU0\tNIC0\tCPU Affinity\tNUMA Affinity\nGPU0\t X \t%s\t0-47\t0\nNIC0\t%s\t X \t\t\n\nLegend:\n\nNIC Legend:\n\n  NIC0: mlx5_0\n' "$TOPO" "$TOPO"
SH
chmod +x "$T/smi/nvidia-smi"
dump() { # sysfs-root topo output
	sed "s#/sys/class/#$1/sys/class/#g" "$T/dump.sh" | TOPO=$2 PATH=$T/smi:$PATH sh | sed "s#$1/sys/class/#/sys/class/#g" >"$3"
}
mkdir -p "$T/d400" "$T/dmix" "$T/fakeslurm"
dump "$T/ib400" PXB "$T/d400/gpu01.txt"
cp "$T/d400/gpu01.txt" "$T/d400/gpu02.txt"
cp "$T/d400/gpu01.txt" "$T/dmix/gpu01.txt"
dump "$T/ib200" SYS "$T/dmix/gpu02.txt"
cat >"$T/fakeslurm/bench-gemm" <<SH
#!/bin/sh
run=\$(dirname "\$(dirname "\$2")")
mkdir -p "\$run/env/fabric" && cp "\$FABDUMPS"/*.txt "\$run/env/fabric/"
exec "$T/fake/bench-gemm" "\$@"
SH
chmod +x "$T/fakeslurm/bench-gemm"
nrun() { # dumps
	FABDUMPS=$1 BENCH_SYSFS_ROOT=$T/ib400 BENCH_RUNNERS=$T/fakeslurm "$BENCH" run -q -o "$T/runs" "$T/m.yaml" >"$T/run.out" 2>&1 ||
		{ cat "$T/run.out"; return 1; }
	sed -n 1p "$T/run.out"
}
NA=$(nrun "$T/d400")
NB=$(nrun "$T/dmix")
python3 - "$NA/env/environment.json" "$A/env/environment.json" <<'PY' && ok "every node's dump in fabric.nodes, read as bench reads its own host, with its nvidia-smi matrix" || { not_ok "fabric.nodes"; show "$T/d400/gpu01.txt"; }
import json, sys
f = json.load(open(sys.argv[1]))["fabric"]
own = json.load(open(sys.argv[2]))["fabric"]
assert sorted(f["nodes"]) == ["gpu01", "gpu02"], f.get("nodes")
for n in ("gpu01", "gpu02"):
    g = f["nodes"][n]
    assert {"net": g["net"], "infiniband": g["infiniband"]} == {"net": own["net"], "infiniband": own["infiniband"]}, (g, own)
    assert g["gpu_topology"] == {"matrix": {"GPU0": {"GPU0": "X", "NIC0": "PXB"}, "NIC0": {"GPU0": "PXB", "NIC0": "X"}},
                                 "nics": {"NIC0": "mlx5_0"}}, g["gpu_topology"]
PY
expect 0 "compare two Slurm runs whose second node has another link rate" "$BENCH" compare --format json "$NA" "$NB"
python3 - "$T/out" <<'PY' && ok "compare lists the second node's port rate and GPU-NIC path as fabric differences, nothing of the first" || not_ok "per-node fabric difference"
import json, sys
d = json.load(open(sys.argv[1]))
w = {x["what"]: x for x in d["stack_differs"]}
k = "fabric.nodes.1.infiniband.mlx5_0.ports.1.rate"
assert k in w and w[k]["baseline"] == "400 Gb/sec (4X NDR)" and w[k]["value"] == "200 Gb/sec (4X HDR)", list(w)
k = "fabric.nodes.1.gpu_topology.GPU0.NIC0"
assert k in w and w[k]["baseline"] == "PXB" and w[k]["value"] == "SYS", list(w)
assert not [x for x in w if x.startswith("fabric.nodes.0.") or x.startswith("fabric.infiniband")], list(w)
PY
# this machine's own sysfs, in a network namespace holding a veth pair and a bridge (root and ip(8) needed)
if [ "$(id -u)" = 0 ] && command -v ip >/dev/null && ip netns add "bench-fab-$$" 2>/dev/null; then
	NS=bench-fab-$$
	ip -n "$NS" link add vfa type veth peer name vfb && ip -n "$NS" link add brf type bridge &&
		ip -n "$NS" link set vfb master brf && ip -n "$NS" link set vfa up && ip -n "$NS" link set brf up
	# sysfs shows the namespace of the process that mounted it: a fresh mount inside the namespace
	ip netns exec "$NS" sh -c "BENCH_RUNNERS=$T/fake '$BENCH' run -q -o '$T/runs-ns' '$T/m.yaml'" >"$T/run.out" 2>&1
	ip netns del "$NS"
	NSRUN=$(sed -n 1p "$T/run.out")
	python3 - "$NSRUN/env/environment.json" <<'PY' && ok "veth pair and bridge in a namespace: virtual, bridge, members, peer" || { not_ok "namespace interfaces"; show "$T/run.out"; }
import json, sys
n = json.load(open(sys.argv[1]))["fabric"]["net"]
assert set(n) == {"vfa", "vfb", "brf"}, n
assert n["vfa"]["kind"] == "virtual" and n["vfa"]["type"] == "ether" and "peer_ifindex" in n["vfa"], n["vfa"]
assert n["brf"]["kind"] == "bridge" and n["brf"]["members"] == ["vfb"], n["brf"]
assert n["vfa"]["operstate"] in ("up", "lowerlayerdown", "down") and n["vfa"]["mtu"] == 1500, n["vfa"]
PY
else
	ok "# SKIP no root or no ip netns"
fi
finish
