#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench gc: a runs directory of run directories and their bundles; each retention rule keeps what it should (the
# newest --keep of each manifest name, every run whose bundle a results repository holds, a run still running),
# --dry-run lists with sizes and removes nothing, and what is not a run directory is never touched.
. "$(dirname "$0")/lib.sh"
R=$T/runs
# run NAME TIME ID [STATE]: a run directory with status.json and a bundle beside it
run() {
	d=$R/$1-$2-$3
	mkdir -p "$d/results"
	printf '{"state": "%s"}\n' "${4:-complete}" >"$d/status.json"
	printf 'results of %s\n' "$d" >"$d/results/x.jsonl"
	printf 'bundle of %s\n' "$d" >"$d.bench.tar.gz"
	printf 'envelope\n' >"$d.bench.tar.gz.intoto.jsonl"
}
run gemm 20261201T020000Z aaaaa1
run gemm 20261202T020000Z aaaaa2
run gemm 20261203T020000Z aaaaa3
run gemm 20261204T020000Z aaaaa4
run gemm-big 20261201T020000Z bbbbb1
run coll 20261201T020000Z ccccc1 running
run coll 20261202T020000Z ccccc2
mkdir -p "$R/notarun" && echo keep >"$R/notarun/file" && echo keep >"$R/notes.txt"
# the results repository holds gemm's oldest bundle (published: kept whatever --keep says)
mkdir -p "$T/repo/runs/gemm/nightly"
cp "$R/gemm-20261201T020000Z-aaaaa1.bench.tar.gz" "$T/repo/runs/gemm/nightly/gemm-20261201T020000Z-aaaaa1.bench.tar.gz"

expect 0 "--dry-run" "$BENCH" gc --keep 1 --repo "$T/repo" --dry-run "$R"
expect_out "$R/gemm-20261202T020000Z-aaaaa2 (and its bundle)"
expect_out "$R/gemm-20261203T020000Z-aaaaa3 (and its bundle)"
expect_err "bench: gc: would remove 2 runs"
grep -qE '^[0-9.]+ ?[KMG]?i?B	' "$T/out" && ok "--dry-run lists sizes" || { not_ok "sizes"; show "$T/out"; }
[ "$(ls "$R" | wc -l)" = 23 ] && ok "--dry-run removes nothing" || { not_ok "dry-run removed"; ls "$R"; }

expect 0 "gc --keep 1 --repo" "$BENCH" gc --keep 1 --repo "$T/repo" "$R"
expect_err "bench: gc: removed 2 runs"
for gone in gemm-20261202T020000Z-aaaaa2 gemm-20261203T020000Z-aaaaa3; do
	[ ! -e "$R/$gone" ] && [ ! -e "$R/$gone.bench.tar.gz" ] && [ ! -e "$R/$gone.bench.tar.gz.intoto.jsonl" ] &&
		ok "removed with its bundle and envelope: $gone" || not_ok "still there: $gone"
done
[ -d "$R/gemm-20261204T020000Z-aaaaa4" ] && ok "--keep 1: the newest run of 'gemm' kept" || not_ok "newest gemm removed"
[ -d "$R/gemm-big-20261201T020000Z-bbbbb1" ] && ok "'gemm-big' is another manifest name: its run kept" ||
	not_ok "gemm-big removed"
[ -d "$R/gemm-20261201T020000Z-aaaaa1" ] && [ -f "$R/gemm-20261201T020000Z-aaaaa1.bench.tar.gz" ] &&
	ok "published: the run the repository holds is kept" || not_ok "published run removed"
[ -d "$R/coll-20261201T020000Z-ccccc1" ] && ok "a run that says running is kept" || not_ok "running run removed"
[ -f "$R/notarun/file" ] && [ -f "$R/notes.txt" ] && ok "what is not a run directory is not touched" ||
	not_ok "non-run removed"

expect 0 "without --repo, the published run goes" "$BENCH" gc --keep 1 "$R"
[ ! -e "$R/gemm-20261201T020000Z-aaaaa1" ] && ok "not published, beyond --keep: removed" || not_ok "aaaaa1 kept"
expect 0 "the default keeps 10" "$BENCH" gc "$R"
expect_err "removed 0 runs"
expect 2 "--keep must be a number" "$BENCH" gc --keep x "$R"
expect 1 "a runs directory that is not there" "$BENCH" gc "$T/nope"
expect_err "cannot read the runs directory '$T/nope'"
expect 1 "a repository without runs/" "$BENCH" gc --repo "$T/repo/runs" "$R"
expect_err "is not a results repository"
finish
