# SPDX-License-Identifier: Apache-2.0
"""Plug-in implementations (docs/plugins.md): loading a case's plug-in (params.plugin), checking its signature and
what it returns, its provenance for extra.plugin, and the per-case timeout (a watchdog that fails the case and starts
the runner again for the cases after it). No dependency beyond the standard library and torch.

  fn, info, why = plugins.load(case_params, cfg)       # why: the failure, or None
  why = plugins.signature_error(fn, name, args, kwargs, expected)
  with plugins.watchdog(suite, case, index, cfg): ...
"""
import hashlib
import importlib
import importlib.util
import inspect
import os
import sys
import threading

_loaded = {}


def _first_line(e):
    return f"{type(e).__name__}: {(str(e).splitlines() or [''])[0][:300]}"


def _sha256(path):
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def _distribution(module):
    """(name, version) of the installed distribution that provides module's top-level package, or (None, None)."""
    try:
        import importlib.metadata as md
    except ImportError:
        return None, None
    top = module.split(".")[0]
    try:
        names = md.packages_distributions().get(top) or []
    except Exception:  # noqa: BLE001 -- Python < 3.10, or a broken metadata directory
        names = []
    for n in names + [top]:
        try:
            return n, md.version(n)
        except Exception:  # noqa: BLE001
            continue
    return None, None


def plugin_of(params):
    p = params.get("plugin")
    return p if isinstance(p, dict) else None


def load(params, cfg):
    """The case's plug-in function: (fn, info, None), or (None, info, the reason) where it does not load. info is
    extra.plugin: name, kind, module, function, file (as loaded), sha256 (of that file), distribution and version
    (python plug-ins, where found). Loaded once per process and plug-in."""
    p = plugin_of(params)
    name = p.get("name", "?")
    if name in _loaded:
        return _loaded[name]
    kind, func = p.get("kind"), p.get("function")
    info = {"name": name, "kind": kind, "function": func}
    if kind == "file":
        info["path"] = p.get("path")
    fn, why = None, None
    try:
        if kind == "python":
            info["module"] = p.get("module")
            mod = importlib.import_module(p["module"])
        elif kind == "file":
            inputs = (cfg or {}).get("inputs") if isinstance(cfg, dict) else None
            path = os.path.join(inputs, p["path"]) if inputs else p["path"]
            if not os.path.exists(path) and os.path.exists(p["path"]):
                path = p["path"]
            modname = "bench_plugin_" + "".join(c if c.isalnum() else "_" for c in name)
            spec = importlib.util.spec_from_file_location(modname, path)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load '{path}' as a Python module")
            mod = importlib.util.module_from_spec(spec)
            sys.modules[modname] = mod
            spec.loader.exec_module(mod)
            info["module"] = modname
        else:
            raise ImportError(f"plug-in kind '{kind}' does not run in the PyTorch runners")
        info["file"] = getattr(mod, "__file__", None)
        if info["file"]:
            info["sha256"] = _sha256(info["file"])
        if kind == "python":
            dist, ver = _distribution(p["module"])
            if dist:
                info.update(distribution=dist, version=ver)
        fn = getattr(mod, func, None)
        if fn is None or not callable(fn):
            fn, why = None, f"plug-in '{name}': no callable '{func}' in {info.get('file') or info.get('module')}"
    except BaseException as e:  # noqa: BLE001 -- SyntaxError, ImportError, SystemExit at import: the case's reason
        if isinstance(e, KeyboardInterrupt):
            raise
        print(f"plug-in '{name}' does not import: {_first_line(e)}", file=sys.stderr)
        fn, why = None, f"plug-in '{name}' does not import: {_first_line(e)}"
    _loaded[name] = (fn, info, why)
    return _loaded[name]


def signature_error(fn, name, args, kwargs, expected):
    """None when fn can be called with args and kwargs, else the reason (expected: the contract's signature)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None  # a builtin or an extension function: it will tell when called
    try:
        sig.bind(*args, **kwargs)
    except TypeError as e:
        return f"plug-in '{name}' has the wrong signature {name}{sig}: {e}; expected {expected}"
    return None


def raised(name, e):
    return f"plug-in '{name}' raised {_first_line(e)}"


def tensor_error(name, out, shape, dtype, device, what="an output"):
    """None when out is a tensor of shape, dtype and device, else what is wrong with it."""
    import torch
    if not isinstance(out, torch.Tensor):
        return f"plug-in '{name}' returned {type(out).__name__}, expected {what}: a tensor {tuple(shape)} {dtype}"
    if tuple(out.shape) != tuple(shape):
        return f"plug-in '{name}' returned shape {tuple(out.shape)}, expected {tuple(shape)}"
    if out.dtype != dtype:
        return f"plug-in '{name}' returned dtype {out.dtype}, expected {dtype}"
    if out.device != device:
        return f"plug-in '{name}' returned a tensor on {out.device}, expected {device}"
    return None


def no_grad_error(name, out):
    if not getattr(out, "requires_grad", False):
        return (f"plug-in '{name}' returned an output with no gradient (a backward pass needs one; declare passes: "
                f"[fwd] in its manifest entry if it has none)")
    return None


def has_pass(params, pas):
    p = plugin_of(params)
    return p is None or "passes" not in p or pas in p["passes"]


def has_backward(params):
    return has_pass(params, "bwd") or has_pass(params, "fwd_bwd")


# ---- the per-case timeout -------------------------------------------------------------------------------------------

SKIP_FLAG = "--skip"


def skip_of(argv):
    """The --skip N of this runner's command line (cases already reported by an earlier process), else 0."""
    if SKIP_FLAG in argv and argv.index(SKIP_FLAG) + 1 < len(argv):
        try:
            return max(0, int(argv[argv.index(SKIP_FLAG) + 1]))
        except ValueError:
            return 0
    return 0


class watchdog:
    """Around one plug-in case: when it runs past the plug-in's timeout, the case's record says so (status failed),
    and the runner is started again (exec, the same command line with --skip index + 1) for the cases after it: the
    hung call cannot be interrupted, the process can be replaced. No-op for a built-in's case."""

    def __init__(self, rec_of, case, index, emit):
        self.p = plugin_of(case["params"])
        self.rec_of, self.case, self.index, self.emit = rec_of, case, index, emit
        self.lock, self.done, self.timer = threading.Lock(), False, None

    def __enter__(self):
        if self.p is not None:
            t = float(self.p.get("timeout_s", 600))
            self.timeout = t
            self.timer = threading.Timer(t, self._fire)
            self.timer.daemon = True
            self.timer.start()
        return self

    def finish(self):
        """Called before the case's own record is emitted: from here on the watchdog does nothing."""
        if self.timer is not None:
            self.timer.cancel()
        with self.lock:
            self.done = True

    def __exit__(self, *exc):
        self.finish()
        return False

    def _fire(self):
        with self.lock:
            if self.done:
                return
            name = self.p.get("name", "?")
            rec = self.rec_of(self.case)
            rec.update(status="failed", error=f"plug-in '{name}' did not finish within {self.timeout:g}s (its timeout); "
                                              f"the runner was restarted for the cases after it")
            info = _loaded.get(name, (None, None, None))[1]
            if info:
                rec["extra"]["plugin"] = info
            try:
                self.emit(rec)
            except Exception:  # noqa: BLE001 -- the record's additions failed: the bare record
                import json
                sys.stdout.write(json.dumps(rec, sort_keys=True, default=str) + "\n")
                sys.stdout.flush()
            print(f"plug-in '{name}': timeout after {self.timeout:g}s in case {self.case['case']}; restarting the "
                  f"runner for the cases after it", file=sys.stderr)
            sys.stderr.flush()
            argv = list(sys.argv)
            if SKIP_FLAG in argv:
                i = argv.index(SKIP_FLAG)
                del argv[i:i + 2]
            os.execv(sys.executable, [sys.executable] + argv + [SKIP_FLAG, str(self.index + 1)])
