/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fabric.h — the machine's network fabric as the environment record keeps it: every network interface
 * (/sys/class/net) and RDMA device (/sys/class/infiniband) with its PCI device, driver, NUMA node, link layer,
 * rate or speed, state, MTU and firmware, and the GPU–GPU / GPU–NIC matrix of `nvidia-smi topo -m`.
 * BENCH_SYSFS_ROOT (for tests) is put before every /sys path.
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
/* `nvidia-smi topo -m`'s matrix: {GPU0: {GPU1: "NV18", NIC0: "PXB", ...}, ...} with nics {NIC0: "mlx5_0"}, as
 * {matrix, nics}; NULL for a text without the matrix. */
json_t *fabric_parse_nvidia_topo(const char *text);

#endif
