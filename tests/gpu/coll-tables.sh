#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The side-by-side tables from the rounds in DIR (tests/gpu/coll-h200x2.sh's $OUT, or several calls' outputs
# copied into one directory): thread per GPU against nccl-tests -g 2; mpirun against nccl-tests -g 2 and against
# nccl-tests under mpirun. Writes DIR/compare.md and prints each table's last line.
#   sh tests/gpu/coll-tables.sh DIR
set -eu
D=$1
cmp() { # $1: title, $2: our records (several files: their rounds), then nccl-tests outputs
	t=$1; shift; o=$1; shift
	echo "## $t"; echo
	python3 tests/gpu/coll_compare.py "$o" "$@"
	echo
}
cat "$D"/ours-[0-9]*.jsonl >"$D/ours.jsonl"
{
	cmp "thread per GPU against nccl-tests -g 2" "$D/ours.jsonl" "$D"/nccl-tests-[0-9]*.txt
	if ls "$D"/ours-mpirun-[0-9]*.jsonl >/dev/null 2>&1; then
		cat "$D"/ours-mpirun-[0-9]*.jsonl >"$D/ours-mpirun.jsonl"
		cmp "mpirun -np 2 against nccl-tests -g 2" "$D/ours-mpirun.jsonl" "$D"/nccl-tests-[0-9]*.txt
		ls "$D"/nccl-tests-mpi-[0-9]*.txt >/dev/null 2>&1 &&
			cmp "mpirun -np 2 against nccl-tests under mpirun -np 2" "$D/ours-mpirun.jsonl" "$D"/nccl-tests-mpi-*.txt
	fi
} >"$D/compare.md"
grep -e "^## " -e "^worst" "$D/compare.md"
python3 tests/gpu/coll_spread.py "$D" >"$D/spread.md"
tail -2 "$D/spread.md"
