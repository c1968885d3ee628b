/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fabric.h — the machine's network fabric as the environment record keeps it: every network interface
 * (/sys/class/net) and RDMA device (/sys/class/infiniband) with its PCI device, driver, NUMA node, link layer,
 * rate or speed, state, MTU and firmware, and the GPU–GPU / GPU–NIC matrix of `nvidia-smi topo -m`.
 * BENCH_SYSFS_ROOT (for tests) is put before every /sys path. The other nodes of a Slurm job are read from the dumps
 * their job script's capture step wrote (FABRIC_DUMP_SCRIPT), parsed with the same code.
 *
 * Ownership: every function returns a new jansson reference the caller decrefs; inputs are borrowed.
 */
#ifndef BENCH_FABRIC_H
#define BENCH_FABRIC_H

#include <jansson.h>

/* {net: {NAME: {kind (physical, virtual, bridge), type (ether, infiniband, or the ARPHRD number), operstate,
 *  mtu, speed_mbps, pci_device, driver, numa_node, members (a bridge's), peer_ifindex (a veth's link)}},
 *  infiniband: {DEV: {pci_device, numa_node, firmware, hca_type, board_id, node_type, netdevs [..],
 *  ports: {N: {state, phys_state, rate, link_layer}}}}}. Loopback is left out; a value sysfs does not give is
 *  absent. Objects are in name order. */
json_t *fabric_collect(void);
/* The same object from a dump of another node's sysfs, the output of FABRIC_DUMP_SCRIPT: lines
 * "V<TAB>path<TAB>the file's first line", "L<TAB>path<TAB>the link's target", "D<TAB>path" (a directory). Only
 * paths under /sys/class/net/ and /sys/class/infiniband/ count; they are keys, nothing is opened. Lines
 * "T<TAB>line" are the node's `nvidia-smi topo -m`, parsed into gpu_topology (fabric_parse_nvidia_topo). */
json_t *fabric_parse_dump(const char *text, size_t len);
/* {NODE: fabric} from DIR/NODE.txt, one dump per node; NULL when DIR holds none. */
json_t *fabric_collect_nodes(const char *dir);
/* The POSIX sh program a Slurm job runs once per node to write its dump on stdout: fixed text, no value of a
 * manifest in it. */
#define FABRIC_DUMP_SCRIPT \
	"v() { [ -f \"$1\" ] && x=$(head -n 1 \"$1\" 2>/dev/null) && printf \"V\\t%s\\t%s\\n\" \"$1\" \"$x\"; }\n" \
	"l() { [ -L \"$1\" ] && printf \"L\\t%s\\t%s\\n\" \"$1\" \"$(readlink \"$1\")\"; }\n" \
	"for d in /sys/class/net/* /sys/class/infiniband/*; do\n" \
	" l \"$d\"; l \"$d/device\"; l \"$d/device/driver\"\n" \
	" for f in type operstate mtu speed ifindex iflink fw_ver hca_type board_id node_type device/numa_node; do v \"$d/$f\"; done\n" \
	" for f in \"$d\"/ports/*/state \"$d\"/ports/*/phys_state \"$d\"/ports/*/rate \"$d\"/ports/*/link_layer; do v \"$f\"; done\n" \
	" for f in \"$d/bridge\" \"$d\"/brif/* \"$d\"/device/net/*; do [ -e \"$f\" ] && printf \"D\\t%s\\n\" \"$f\"; done\n" \
	"done\n" \
	"command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi topo -m 2>/dev/null | while IFS= read -r x; do printf \"T\\t%s\\n\" \"$x\"; done\n" \
	"true\n"
/* `nvidia-smi topo -m`'s matrix: {GPU0: {GPU1: "NV18", NIC0: "PXB", ...}, ...} with nics {NIC0: "mlx5_0"}, as
 * {matrix, nics}; NULL for a text without the matrix. */
json_t *fabric_parse_nvidia_topo(const char *text);

#endif
