#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Test setup for the Slurm tests (not part of bench): a two-node Slurm cluster on this one machine (the CI
# sandbox is one host). munged and slurmctld in the host namespace on a bridge (10.77.0.1); each slurmd in
# its own network namespace with its own address (node1 10.77.0.11, node2 10.77.0.12) and its own /sys.
#   sh tests/setup/slurm.sh up      install what is missing, start everything, wait until both nodes are idle
#   sh tests/setup/slurm.sh down    stop the daemons, remove the namespaces and the bridge
set -eu
BR=benchbr0
NET=10.77.0
CONF=/etc/slurm/slurm.conf
cmd=${1:-up}

down() {
	pkill -x slurmd 2>/dev/null || true
	pkill -x slurmctld 2>/dev/null || true
	sleep 1
	for n in 1 2; do ip netns del "benchn$n" 2>/dev/null || true; rmdir "/run/benchn$n-cgroup" 2>/dev/null || true; done
	ip link del "$BR" 2>/dev/null || true
}

if [ "$cmd" = down ]; then
	down
	exit 0
fi
[ "$(id -u)" = 0 ] || { echo "slurm setup: run as root" >&2; exit 1; }
need=
for p in slurmctld slurmd sbatch munged nsenter ip mpirun; do command -v "$p" >/dev/null 2>&1 || need="$need $p"; done
if [ -n "$need" ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 --no-install-recommends slurm-wlm munge iproute2 \
		util-linux openmpi-bin libopenmpi-dev libpmix-dev >/tmp/slurm-apt.log 2>&1 ||
		{ tail -n 20 /tmp/slurm-apt.log >&2; exit 1; }
fi
down
# munge: one key, the daemon on the host (the namespaces share its socket through the file system)
if [ ! -s /etc/munge/munge.key ]; then
	dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null
	chown munge:munge /etc/munge/munge.key 2>/dev/null || true
	chmod 0400 /etc/munge/munge.key
fi
mkdir -p /run/munge /var/log/munge /var/lib/munge
chown munge:munge /run/munge /var/log/munge /var/lib/munge 2>/dev/null || true
pgrep -x munged >/dev/null || su -s /bin/sh munge -c munged 2>/dev/null || munged --force
# the network: a bridge, one namespace per node with a veth into it
ip link add "$BR" type bridge
ip addr add "$NET.1/24" dev "$BR"
ip link set "$BR" up
for n in 1 2; do
	ip netns add "benchn$n"
	ip link add "vbench$n" type veth peer name eth0 netns "benchn$n"
	ip link set "vbench$n" master "$BR" up
	ip -n "benchn$n" addr add "$NET.1$n/24" dev eth0
	ip -n "benchn$n" link set eth0 up
	ip -n "benchn$n" link set lo up
	mkdir -p "/var/spool/slurmd/node$n" "/tmp/slurm-node$n"
done
mkdir -p /etc/slurm /var/spool/slurmctld /var/log/slurm
cpus=$(nproc)
cat >"$CONF" <<CONF
# written by bench's tests/setup/slurm.sh
ClusterName=bench
SlurmctldHost=$(hostname -s)($NET.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd/%n
SlurmdPidFile=/run/slurmd-%n.pid
TmpFS=/tmp/slurm-%n
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd-%n.log
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MinJobAge=600
SchedulerParameters=defer_batch
NodeName=node1 NodeAddr=$NET.11 CPUs=$cpus State=UNKNOWN
NodeName=node2 NodeAddr=$NET.12 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=node1,node2 Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
rm -rf /var/spool/slurmctld/*
setsid slurmctld -i </dev/null >/dev/null 2>&1 &
for n in 1 2; do
	# in a mount namespace of its own with a sysfs of the network namespace, so each node's /sys/class/net is its
	# own (its eth0) as on separate machines (the job script's fabric capture reads it); slurmd needs the cgroup
	# mounts under /sys/fs/cgroup, carried over the new sysfs through a directory held for the moment
	mkdir -p "/run/benchn$n-cgroup"
	setsid nsenter --net="/run/netns/benchn$n" unshare -m --propagation private sh -c '
		mount --rbind /sys/fs/cgroup "$1" && mount -t sysfs sysfs /sys && mount --rbind "$1" /sys/fs/cgroup &&
		umount -l "$1" && rmdir "$1" && exec slurmd -D -N "$2"' sh "/run/benchn$n-cgroup" "node$n" </dev/null >/dev/null 2>&1 &
done
i=0
while [ $i -lt 60 ]; do
	if [ "$(sinfo -h -N -o '%t' 2>/dev/null | grep -c idle)" = 2 ]; then
		sinfo -N
		exit 0
	fi
	sleep 1
	i=$((i + 1))
done
echo "slurm setup: the nodes did not come up" >&2
sinfo -N >&2 || true
tail -n 20 /var/log/slurm/slurmctld.log >&2 || true
exit 1
