#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""How train.py's ranks start: the process bench starts reads the cases file and, when it asks for more ranks than
the world it runs in, starts them (one process per rank of this machine, env:// rendezvous) and exits with their
status. On GPUs it does not import torch (seconds of loading for nothing): each rank starts afresh and imports it,
so that no CUDA or HIP state can pass from one process to another. On CPU (the cases file's vendor is "cpu") it
imports torch once and the ranks fork from it, each sharing that import instead of loading torch again. The ranks,
and a one-rank run, measure (train.py)."""
import json
import os
import sys


def dist_info():
    """(rank, world, local_rank) under torchrun, else (0, 1, 0)."""
    return int(os.environ.get("RANK", 0)), int(os.environ.get("WORLD_SIZE", 1)), int(os.environ.get("LOCAL_RANK", 0))


def start_ranks(script, suite):
    """Where this process is the one that starts the ranks (the cases file's "ranks" above 1, outside a world of
    several, not the one-rank process of measure_single): the cases that ask for scaling run once on one rank
    first, then the ranks run script with this process's arguments; exits with their status. Returns otherwise,
    also where the arguments are wrong or the cases file cannot be read: train.py's main reads them again and says
    what is wrong."""
    argv = sys.argv[1:]
    if "-h" in argv or "--help" in argv or "--config" not in argv or argv.index("--config") + 1 >= len(argv):
        return
    if os.environ.get("BENCH_TRAIN_SINGLE") == "1" or dist_info()[1] > 1:
        return
    try:
        with open(argv[argv.index("--config") + 1]) as f:
            cfg = json.load(f)
    except (OSError, ValueError):
        return
    ranks = int(cfg.get("ranks", 1)) if isinstance(cfg, dict) else 1
    if ranks <= 1:
        return
    fork = isinstance(cfg, dict) and cfg.get("vendor") == "cpu"
    cases = cfg if isinstance(cfg, list) else cfg.get("cases", [])
    scaling = any(c["params"].get("scaling") for c in cases if c.get("suite", suite) == suite)
    if scaling:
        import tempfile
        fd, path = tempfile.mkstemp(prefix="bench-train-single-", suffix=".jsonl")
        os.close(fd)
        try:
            recs, why = measure_single(path, script)
            with open(path, "w") as f:  # only what parsed, for rank 0
                json.dump({"records": recs, "why": why}, f)
            os.environ["BENCH_TRAIN_SINGLE_RECORDS"] = path
            code = launch_ranks(ranks, script, fork)
        finally:
            os.unlink(path)
        sys.exit(code)
    sys.exit(launch_ranks(ranks, script, fork))


def slurm_rendezvous(n):
    """Under a Slurm job of several nodes (one task per node): this node's rank offset, its number of local ranks
    and the rendezvous address (the job's first node, a port derived from the job id), as torchrun would set
    them from the Slurm environment. None outside such a job."""
    import subprocess

    nnodes = int(os.environ.get("SLURM_JOB_NUM_NODES", os.environ.get("SLURM_NNODES", "1")))
    if nnodes <= 1 or "SLURM_NODEID" not in os.environ or n % nnodes:
        return None
    first = subprocess.run(["scontrol", "show", "hostnames", os.environ["SLURM_JOB_NODELIST"]], capture_output=True,
                           text=True, check=True).stdout.split()[0]
    node = subprocess.run(["scontrol", "show", "node", "-o", first], capture_output=True, text=True).stdout
    addr = [f[9:] for f in node.split() if f.startswith("NodeAddr=")]  # the address Slurm reaches it on
    first = addr[0] if addr else first
    local = n // nnodes
    port = 20000 + int(os.environ.get("SLURM_JOB_ID", "0")) % 20000
    return int(os.environ["SLURM_NODEID"]) * local, local, first, port


def launch_ranks(n, script, fork=False):
    """One process per rank of this machine, rendezvous through env:// (what torchrun sets up; done here so it
    works the same on every torch version): on 127.0.0.1, or across the nodes of a Slurm job. Global rank 0's
    stdout is ours. fork: the ranks are forks of this process, which imports torch first (CPU only)."""
    import socket
    import subprocess

    sl = slurm_rendezvous(n)
    if sl:
        base, local, addr, port = sl
    else:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        base, local, addr = 0, n, "127.0.0.1"
    if fork:
        try:
            import torch  # noqa: F401  loaded once, here: every rank forked from this process shares it
        except Exception:  # the ranks start afresh instead, and each says why torch does not import
            fork = False
    print(f"train.py: starting ranks {base}..{base + local - 1} of {n} (env:// rendezvous on {addr}:{port}; "
          f"{'forked after one import of torch' if fork else 'a process each'})", file=sys.stderr)
    envs = [dict(RANK=str(base + lr), LOCAL_RANK=str(lr), WORLD_SIZE=str(n), LOCAL_WORLD_SIZE=str(local),
                 MASTER_ADDR=addr, MASTER_PORT=str(port)) for lr in range(local)]
    if fork:
        codes = fork_ranks(envs, script)
    else:
        procs = [subprocess.Popen([sys.executable, script] + sys.argv[1:], env=dict(os.environ, **e),
                                  stdout=None if e["RANK"] == "0" else subprocess.DEVNULL) for e in envs]
        codes = [p.wait() for p in procs]
    return max(codes) if all(c >= 0 for c in codes) else 1


def fork_ranks(envs, script):
    """Each rank a fork of this process (which has imported torch): its environment from envs, stdout kept for
    global rank 0 only, script run as __main__ with this process's arguments. Returns the ranks' exit codes as
    subprocess gives them (a signal's: its negative number)."""
    import runpy
    import traceback

    sys.stdout.flush()
    sys.stderr.flush()
    pids = []
    for e in envs:
        pid = os.fork()
        if pid:
            pids.append(pid)
            continue
        code = 1
        try:
            os.environ.update(e)
            if e["RANK"] != "0":
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, 1)
                os.close(null)
            sys.argv = [script] + sys.argv[1:]
            runpy.run_path(script, run_name="__main__")
            code = 0
        except SystemExit as x:  # as the interpreter exits: None 0, a number itself, anything else printed, 1
            if x.code is None or isinstance(x.code, int):
                code = x.code or 0
            else:
                print(x.code, file=sys.stderr)
        except BaseException:
            traceback.print_exc()
        finally:
            # what a fresh interpreter would write on its way out: Python's buffers, then C stdio's (a native
            # library's printf); not the atexit handlers, which this process shares with its parent
            try:
                sys.stdout.flush()
                sys.stderr.flush()
                import ctypes
                ctypes.CDLL(None).fflush(None)
            finally:
                os._exit(code)
    return [os.waitstatus_to_exitcode(os.waitpid(p, 0)[1]) for p in pids]


def measure_single(path, script):
    """The cases that ask for scaling, run once more on one rank (GPU 0, or one CPU process) before the ranks start:
    their records go to path, one JSON line each, for the ranks' records to compare with. Returns the one-rank
    records by case key that parse (a line cut short or a stray print is skipped) and why there are none, if so.
    Under a Slurm job of several nodes each node's task runs it (node 0's copy is the one compared with), which
    keeps the nodes in step for the rendezvous that follows."""
    import subprocess

    env = dict(os.environ, BENCH_TRAIN_SINGLE="1")
    for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(k, None)
    print("train.py: scaling: the cases on one rank first", file=sys.stderr)
    with open(path, "w") as f:
        code = subprocess.run([sys.executable, script] + sys.argv[1:], env=env, stdout=f).returncode
    recs = {}
    with open(path) as f:
        for line in f:
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if isinstance(r, dict) and isinstance(r.get("case"), str):
                recs[r["case"]] = r
    why = f"the one-rank process exited {code}" if code else ""
    if code:
        print(f"train.py: scaling: {why}", file=sys.stderr)
    return recs, why
