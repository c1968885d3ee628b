#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The shape rules of cli/ (CONTRIBUTING.md, "Shape of the code"), checked on the sources as text.

  tools/layout.py functions [--top N] [ROOT]   every function of ROOT/cli with its length, longest first
  tools/layout.py check [ROOT]                 exit 1 listing each rule broken, 0 when none is

A function is counted from the line of its signature to its closing brace at column 0 (the house style puts a
function's braces at column 0, and nothing else there). A module is foo.c with foo.h (foo_int.h, a private
header, belongs to foo); module A depends on B when a file of A includes a file of B.
"""
import os
import re
import sys

FUNCTION_MAX = 100   # lines of one function in cli/
COMMAND_MAX = 150    # lines of one cli/cmd_*.c: a command parses options, calls a stage, maps the exit code

SIG = re.compile(r'^[A-Za-z_][A-Za-z0-9_ \*]*\(')
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(root, exts):
    out = []
    for d, dirs, files in os.walk(os.path.join(root, 'cli')):
        dirs.sort()
        out += [os.path.join(d, f) for f in sorted(files) if f.endswith(exts)]
    return out


def functions(path):
    """(length, line, name) of each function definition of a C file."""
    res, sig, start, name = [], 0, 0, ''
    with open(path, encoding='utf-8', errors='replace') as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if SIG.match(line) and not line.rstrip().endswith(';'):
                sig = n
                words = re.split(r'[ \*]+', line.split('(')[0].strip())
                name = words[-1]
            if line.startswith('{'):
                start = sig or n
            elif line.startswith('}') and start:
                res.append((n - start + 1, start, name))
                start = sig = 0
    return res


def module_of(root, path):
    rel = os.path.relpath(path, os.path.join(root, 'cli'))
    m = rel.rsplit('.', 1)[0]
    return m[:-4] if m.endswith('_int') else m


def module_graph(root):
    graph = {}
    for path in sources(root, ('.c', '.h')):
        m = module_of(root, path)
        deps = graph.setdefault(m, set())
        with open(path, encoding='utf-8', errors='replace') as f:
            text = f.read()
        for inc in INC.findall(text):
            for cand in (os.path.join(os.path.dirname(path), inc), os.path.join(root, 'cli', inc)):
                if os.path.isfile(cand):
                    t = module_of(root, os.path.normpath(cand))
                    if t != m:
                        deps.add(t)
                    break
    return graph


def cycles(graph):
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


def main(argv):
    if not argv or argv[0] not in ('functions', 'check'):
        sys.stderr.write(__doc__)
        return 2
    top = None
    args = argv[1:]
    if args[:1] == ['--top']:
        top, args = int(args[1]), args[2:]
    root = args[0] if args else '.'
    if not os.path.isdir(os.path.join(root, 'cli')):
        sys.stderr.write('layout.py: %s has no cli/ folder\n' % root)
        return 2
    rows = []
    for path in sources(root, ('.c',)):
        rel = os.path.relpath(path, root)
        rows += [(ln, '%s:%d' % (rel, at), name) for ln, at, name in functions(path)]
    rows.sort(key=lambda r: (-r[0], r[1]))
    if argv[0] == 'functions':
        for ln, where, name in rows[:top]:
            print('%5d  %s  %s' % (ln, where, name))
        return 0
    bad = 0
    for ln, where, name in rows:
        if ln > FUNCTION_MAX:
            print('%s: %s() is %d lines (at most %d)' % (where, name, ln, FUNCTION_MAX))
            bad += 1
    for path in sources(root, ('.c',)):
        if re.match(r'cmd_.*\.c$', os.path.basename(path)) and os.path.dirname(path) == os.path.join(root, 'cli'):
            with open(path, encoding='utf-8', errors='replace') as f:
                n = sum(1 for _ in f)
            if n > COMMAND_MAX:
                print('%s: a command file of %d lines (at most %d)' % (os.path.relpath(path, root), n, COMMAND_MAX))
                bad += 1
    for comp in cycles(module_graph(root)):
        print('cli/: an include cycle among the modules %s' % ' '.join(comp))
        bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
