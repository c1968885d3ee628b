/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ccllog.h — what NCCL or RCCL says it chose, read back from its own debug log (NCCL_DEBUG=INFO,
 * NCCL_DEBUG_SUBSYS=CCLLOG_SUBSYS, NCCL_DEBUG_FILE): the library version it loaded, the variables it took from the
 * environment, its channels, the transport of every connection (P2P, SHM, NET/IB, NVLS), CollNet, and the
 * algorithm, protocol and channels of every collective call rank 0 made (TUNING). RCCL, a fork, writes the same
 * lines (its version line is "RCCL version ..."). No GPU is needed: the parser reads text (tests feed fixtures).
 *
 * Ownership: ccllog_parse_into() adds to a caller-owned JSON object; ccllog_not_effective() and ccllog_read() return
 * new references / heap buffers the caller frees (json_decref, free). Inputs are borrowed.
 */
#ifndef BENCH_CCLLOG_H
#define BENCH_CCLLOG_H

#include <stddef.h>

#include <jansson.h>

/* The subsystems the runner asks for: INIT (version, channels, transports, NVLS, network), ENV (variables taken),
 * TUNING (per collective call: algorithm, protocol, channels). */
#define CCLLOG_SUBSYS "INIT,ENV,TUNING"

/* Adds what the lines of text say to eff (an object), accumulating over calls:
 *   library ("nccl"|"rccl"), version, nranks, nnodes, env {NAME: value as reported}, invalid {NAME: value},
 *   channels {coll, collnet, nvls, p2p, p2p_per_peer}, nvls {available, channels}, network, net_devices,
 *   collnet ("disabled: <reason>" when NCCL said so), transports {via: connections},
 *   peers ["R -> S via X", distinct, at most CCLLOG_MAX_PEERS], collectives [{op, bytes, algorithm, protocol,
 *   channels, calls}] (distinct, in order of first appearance), lines (lines read). */
#define CCLLOG_MAX_PEERS 256
void ccllog_parse_into(json_t *eff, const char *text, size_t len);

/* Which of the variables asked (env: "NAME=VALUE" strings, n of them; others than NCCL_ and RCCL_ ones are
 * ignored) did not take effect by what eff reports: NCCL_ALGO / NCCL_PROTO (the lists, "^" exclusions and the
 * per-function "func:list;..." form) against every collective's algorithm / protocol; NCCL_MIN_NCHANNELS,
 * NCCL_MIN_CTAS, NCCL_MAX_NCHANNELS, NCCL_MAX_CTAS against the coll channels; NCCL_NVLS_ENABLE and
 * NCCL_COLLNET_ENABLE against NVLS and CollNet; NCCL_P2P_DISABLE, NCCL_SHM_DISABLE against the transports;
 * NCCL_NET and NCCL_IB_DISABLE against the network; any value NCCL called invalid. Returns an array of
 * {variable, asked, effective} (empty: all took effect, or nothing to judge them by). */
json_t *ccllog_not_effective(const json_t *eff, const char *const *env, size_t n);

/* The bytes of path from offset from to its end (NUL-terminated; *len their count, *end the new offset), or NULL
 * (no file, nothing new). */
char *ccllog_read(const char *path, long from, size_t *len, long *end);

#endif
