# SPDX-License-Identifier: Apache-2.0
"""The TAP harness of the tests in this folder: each file's test_* functions, run in name order, one TAP line each.

A test file imports Skip and ends with `if __name__ == "__main__": tap.main(globals())`; the file's folder is first on
sys.path when it runs as a script, so `import tap` finds this one."""
import sys
import traceback


class Skip(Exception):
    """Raised by a test that cannot run here (the message says why): reported as ok with # SKIP."""


def main(namespace):
    """Runs every callable test_* of namespace (a module's globals()), prints TAP (ok / not ok with the traceback as
    a comment, then the plan) and exits 1 when one failed, else 0."""
    tests = [(n, f) for n, f in sorted(namespace.items()) if n.startswith("test_") and callable(f)]
    failed = 0
    for i, (name, fn) in enumerate(tests, 1):
        try:
            fn()
            print(f"ok {i} - {name}")
        except Skip as e:
            print(f"ok {i} - {name} # SKIP {e}")
        except Exception:
            failed += 1
            print(f"not ok {i} - {name}")
            print("# " + traceback.format_exc().replace("\n", "\n# "))
    print(f"1..{len(tests)}")
    sys.exit(1 if failed else 0)
