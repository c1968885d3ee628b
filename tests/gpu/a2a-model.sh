#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# all_to_all 16..64 MiB: nccl-tests one thread for both GPUs (-g 2) and a thread per GPU (-t 2), against
# bench-coll thread per GPU (default, NCCL_LAUNCH_MODE=GROUP) and one rank per GPU (mpirun), each twice.
#   NCCL_TESTS=/path/to/nccl-tests BENCH=./bench sh tests/gpu/a2a-model.sh
. tests/gpu/coll-setup.sh
ours() { # $1 label, rest: env assignments
	l=$1; shift
	env "$@" "$BENCH" run -o /tmp/a2a-$l tests/gpu/h200x2-a2a$m.yaml >/tmp/a2a-$l.txt 2>&1 || tail -5 /tmp/a2a-$l.txt
	python3 -c 'import json,sys
for l in open(sys.argv[1]):
    r=json.loads(l); e=r["extra"]
    if r["status"]=="ok": print(sys.argv[2], e["bytes"], "time_us %.2f busbw %.2f" % (e["time_us"], r["value"]))' \
		/tmp/a2a-$l/*/results/collectives.jsonl "$l"
}
for rep in 1 2; do
	echo "# nccl-tests -g 2 ($rep)"; "$NT/build/alltoall_perf" -b 16M -e 64M -f 2 -g 2 -w 5 -n 100 -d bfloat16 -c 1 | grep -v "^#"
	echo "# nccl-tests -t 2 ($rep)"; "$NT/build/alltoall_perf" -b 16M -e 64M -f 2 -t 2 -g 1 -w 5 -n 100 -d bfloat16 -c 1 | grep -v "^#"
	m= ours threads-$rep X=1
	m= ours group-$rep NCCL_LAUNCH_MODE=GROUP
	m=-mpirun ours mpirun-$rep X=1
done
