# SPDX-License-Identifier: Apache-2.0
"""Proof of what ran, for the Python runners (the C runners' runners/common/loaded.c; docs/architecture.md,
"Records"): the shared libraries this process mapped, their sonames and the versions they report; the Python
distributions whose modules are imported; the libraries the stack's prefixes provide. Standard library only."""
import ctypes
import os
import struct
import sys

# functions a library may export that tell its version without a device, a handle or initialisation
# (name, kind): kinds as in loaded.c
VERSION_FNS = (("ncclGetVersion", "nccl"), ("cublasLtGetVersion", "size_t"), ("cudnnGetVersion", "size_t"),
               ("cudaRuntimeGetVersion", "cudart"), ("hipRuntimeGetVersion", "hiprt"),
               ("rocblas_get_version_string", "rocblas"), ("openblas_get_config", "second_word"),
               ("bli_info_get_version_str", "str"), ("gnu_get_libc_version", "str"))


def is_shared_object(name):
    i = name.find(".so")
    return i >= 0 and (len(name) == i + 3 or name[i + 3] == ".")


def elf_soname(path):
    """DT_SONAME of a 64-bit little-endian ELF file, else None."""
    try:
        with open(path, "rb") as f:
            eh = f.read(64)
            if len(eh) < 64 or eh[:4] != b"\x7fELF" or eh[4] != 2 or eh[5] != 1:
                return None
            phoff, = struct.unpack_from("<Q", eh, 32)
            phentsize, phnum = struct.unpack_from("<HH", eh, 54)
            f.seek(phoff)
            phs = [struct.unpack_from("<IIQQQQQQ", f.read(phentsize)) for _ in range(min(phnum, 256))]
            dyn = [p for p in phs if p[0] == 2]  # PT_DYNAMIC
            if not dyn:
                return None
            f.seek(dyn[0][2])
            data = f.read(min(dyn[0][5], 16 * 4096))
            strtab = soname = None
            for k in range(len(data) // 16):
                tag, val = struct.unpack_from("<qQ", data, k * 16)
                if tag == 0:
                    break
                if tag == 5:
                    strtab = val
                elif tag == 14:
                    soname = val
            if strtab is None or soname is None:
                return None
            for p in phs:  # PT_LOAD holding the string table: its address to a file offset
                if p[0] == 1 and p[3] <= strtab < p[3] + p[5]:
                    f.seek(p[2] + strtab - p[3] + soname)
                    name = f.read(256).split(b"\0", 1)[0]
                    return name.decode("utf-8", "replace") or None
    except (OSError, struct.error):
        return None
    return None


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p), ("dli_sname", ctypes.c_char_p),
                ("dli_saddr", ctypes.c_void_p)]


def _own_version(path):
    """The version the library at path (already loaded) reports through a version function it defines itself."""
    try:
        lib = ctypes.CDLL(path, mode=getattr(os, "RTLD_NOLOAD", 4) | getattr(os, "RTLD_LAZY", 1))
        libc = ctypes.CDLL(None)
        dladdr = libc.dladdr
        dladdr.argtypes = (ctypes.c_void_p, ctypes.POINTER(_DlInfo))
    except (OSError, AttributeError):
        return None
    for fn, kind in VERSION_FNS:
        try:
            f = getattr(lib, fn)
        except AttributeError:
            continue
        info = _DlInfo()
        if not dladdr(ctypes.cast(f, ctypes.c_void_p), ctypes.byref(info)) or not info.dli_fname or \
                os.path.realpath(info.dli_fname.decode()) != path:
            continue  # found in one of its dependencies: not its own
        try:
            if kind in ("nccl", "cudart", "hiprt"):
                v = ctypes.c_int(0)
                f.argtypes, f.restype = (ctypes.POINTER(ctypes.c_int),), ctypes.c_int
                if f(ctypes.byref(v)) != 0 or v.value <= 0:
                    continue
                v = v.value
                if kind == "nccl":
                    return f"{v // 10000}.{v // 100 % 100}.{v % 100}" if v >= 10000 else f"{v // 1000}.{v // 100 % 10}.{v % 100}"
                if kind == "cudart":
                    return f"{v // 1000}.{v % 1000 // 10}"
                return f"{v // 10000000}.{v // 100000 % 100}.{v % 100000}"
            if kind == "size_t":
                f.argtypes, f.restype = (), ctypes.c_size_t
                v = f()
                if v >= 10000:
                    return f"{v // 10000}.{v // 100 % 100}.{v % 100}"
                if v:
                    return f"{v // 1000}.{v // 100 % 10}.{v % 100}"
                continue
            if kind == "rocblas":
                buf = ctypes.create_string_buffer(128)
                f.argtypes, f.restype = (ctypes.c_char_p, ctypes.c_size_t), ctypes.c_int
                if f(buf, 128) == 0:
                    return buf.value.decode("utf-8", "replace")
                continue
            f.argtypes, f.restype = (), ctypes.c_char_p
            s = f()
            if not s:
                continue
            s = s.decode("utf-8", "replace")
            if kind == "second_word" and " " in s:  # "OpenBLAS 0.3.21 DYNAMIC_ARCH ..."
                return s.split()[1]
            return s
        except Exception:
            continue
    return None


_versions = {}


def loaded_libraries():
    """[{path, soname, version}] for every shared object mapped in this process (/proc/self/maps), one per real
    path, in address order; a library's version is asked once per process."""
    out, seen = [], set()
    try:
        with open("/proc/self/maps") as f:
            lines = f.read().splitlines()
    except OSError:
        return out
    for line in lines:
        parts = line.split(None, 5)
        if len(parts) < 6 or not parts[5].startswith("/") or not is_shared_object(os.path.basename(parts[5])):
            continue
        path = os.path.realpath(parts[5])
        if path in seen or not os.path.isfile(path):
            continue
        seen.add(path)
        if path not in _versions:
            _versions[path] = _own_version(path)
        out.append({"path": path, "soname": elf_soname(path) or os.path.basename(path), "version": _versions[path]})
    return out


_dists = None


def loaded_packages(extra=None):
    """[{name, version}] of the installed distributions whose top-level modules this process imported, sorted;
    extra: {name: {key: value}} merged into those entries (torch's CUDA, HIP and NCCL versions)."""
    global _dists
    try:
        import importlib.metadata as md
        if _dists is None:
            _dists = md.packages_distributions() if hasattr(md, "packages_distributions") else {}
        names = {}
        for mod in list(sys.modules):
            if "." in mod or mod not in _dists:
                continue
            for d in _dists[mod]:
                if d not in names:
                    try:
                        names[d] = md.version(d)
                    except Exception:
                        pass
    except Exception:
        names = {}
    out = []
    for n in sorted(names, key=str.lower):
        e = {"name": n, "version": names[n]}
        e.update((extra or {}).get(n, {}))
        out.append(e)
    return out


def stack_libs(root=None):
    """[{component, path, real, soname}] for every shared object under ROOT/<component>/lib* (ROOT: /opt/stack, or
    $BENCH_STACK_ROOT), as loaded.c lists them."""
    root = root or os.environ.get("BENCH_STACK_ROOT") or "/opt/stack"
    out = []
    try:
        comps = sorted(os.listdir(root))
    except OSError:
        return out
    for c in comps:
        cdir = os.path.join(root, c)
        try:
            subs = sorted(d for d in os.listdir(cdir) if d.startswith("lib"))
        except OSError:
            continue
        for s in subs:
            ldir = os.path.join(cdir, s)
            try:
                files = sorted(os.listdir(ldir))
            except OSError:
                continue
            for name in files:
                p = os.path.join(ldir, name)
                if name.startswith(".") or not is_shared_object(name) or not os.path.isfile(p):
                    continue
                real = os.path.realpath(p)
                so = elf_soname(real)
                if so:
                    out.append({"component": c, "path": p, "real": real, "soname": so})
    return out
