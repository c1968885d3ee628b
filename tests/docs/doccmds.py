#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The commands of the docs, extracted and run (tests/cli/t0020-docs.sh drives it; it speaks TAP).

  doccmds.py list FILE...                  every command found, one per line: FILE:LINE [annotation] command
  doccmds.py run --root DIR FILE...        run them in the working directory, as written; TAP on stdout

Where commands are:
  - Markdown: fenced ```sh blocks. A command is a logical line: continued by a trailing backslash, or through a
    here-document's end marker. A ```sh block holds only commands (and # comments).
  - a man page (.1): the lines between .nf and .fi of its EXAMPLES section, roff escapes undone (\\- is -).

Annotations, for commands that need what a CPU CI machine does not have (GPUs, podman, Slurm, writing outside the
checkout): an HTML comment on the line just before the fence (Markdown), or a roff comment line just before the
example line (man page), applying to that block or line:
  <!-- docs-test: elsewhere TEST... (why) -->   run by TEST (paths from the repository root; each must exist);
                                                 here they are only checked: sh -n parses them, each bench
                                                 subcommand exists with every option used (its -h), each
                                                 manifests/*.yaml named exists and validates
  <!-- docs-test: exit N... -->                  run here; any of these exit statuses passes (default 0)
  .\\" docs-test: ...                            the same in a man page
Anything else in a ```sh block is run as written, and must exit 0: a command that cannot run here fails the test
until it is fixed or annotated.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys

ANNOT = re.compile(r"^\s*(?:<!--|\.\\\")\s*docs-test:\s*(.*?)\s*(?:-->)?\s*$")
HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")
TIMEOUT = int(os.environ.get("DOCS_TEST_TIMEOUT", "600"))


def logical_commands(lines, first_line):
    """[(line number, command text)]: comment-only and blank lines dropped, continuations and here-documents
    joined."""
    out, i = [], 0
    while i < len(lines):
        start, text = i, lines[i]
        i += 1
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        while text.endswith("\\") and i < len(lines):
            text += "\n" + lines[i]
            i += 1
        for m in HEREDOC.finditer(text):
            end = m.group(2)
            while i < len(lines):
                text += "\n" + lines[i]
                i += 1
                if lines[i - 1].strip() == end:
                    break
        out.append((first_line + start, text))
    return out


def markdown_blocks(path):
    """[(line of the block's first line, annotation or None, [lines])] of the ```sh blocks."""
    lines = open(path, encoding="utf-8").read().split("\n")
    blocks, i = [], 0
    while i < len(lines):
        if lines[i].strip() == "```sh":
            annot = None
            j = i - 1
            while j >= 0 and not lines[j].strip():
                j -= 1
            m = ANNOT.match(lines[j]) if j >= 0 else None
            if m:
                annot = m.group(1)
            body, k = [], i + 1
            while k < len(lines) and not lines[k].startswith("```"):
                body.append(lines[k])
                k += 1
            blocks.append((i + 2, annot, body))
            i = k
        i += 1
    return blocks


def roff_text(s):
    s = s.replace("\\-", "-").replace("\\(aq", "'").replace("\\e", "\\").replace("\\&", "")
    return s


def man_blocks(path):
    """Each example line of the EXAMPLES section as a block of one line, with the roff comment before it."""
    lines = open(path, encoding="utf-8").read().split("\n")
    blocks, in_ex, in_nf, annot = [], False, False, None
    for n, line in enumerate(lines, 1):
        if line.startswith(".SH"):
            in_ex = line.strip() == ".SH EXAMPLES"
            continue
        if not in_ex:
            continue
        if line.startswith(".nf"):
            in_nf = True
        elif line.startswith(".fi"):
            in_nf = False
        elif in_nf:
            m = ANNOT.match(line)
            if m:
                annot = m.group(1)
            elif line.startswith(".\\\""):
                continue
            elif line.strip():
                blocks.append((n, annot, [roff_text(line)]))
                annot = None
    return blocks


def commands(path):
    blocks = man_blocks(path) if path.endswith(".1") else markdown_blocks(path)
    for line, annot, body in blocks:
        for n, cmd in logical_commands(body, line):
            yield n, annot, cmd


def parse_annot(annot):
    """('run', allowed exits, []) or ('elsewhere', None, [tests])."""
    if not annot:
        return "run", {0}, []
    words = annot.split("(")[0].split()
    if words and words[0] == "exit" and all(w.isdigit() for w in words[1:]) and len(words) > 1:
        return "run", {int(w) for w in words[1:]}, []
    if words and words[0] == "elsewhere" and len(words) > 1:
        return "elsewhere", None, words[1:]
    return "bad", None, [annot]


def simple_commands(cmd):
    """The argv of each simple command (split at ; && || | and newlines; here-document bodies left out)."""
    first = cmd.split("\n")[0] if HEREDOC.search(cmd) else cmd.replace("\\\n", " ")
    try:
        lex = shlex.shlex(first, posix=True, punctuation_chars=";&|")
        lex.whitespace_split = True
        lex.commenters = "#"
        words = list(lex)
    except ValueError:
        return []
    out, cur = [], []
    for w in words:
        if w and set(w) <= set(";&|\n"):
            if cur:
                out.append(cur)
            cur = []
        else:
            cur.append(w)
    if cur:
        out.append(cur)
    return out


def check_elsewhere(root, cmd):
    """Problems found in a command that runs elsewhere: [] when it parses, its bench subcommands and options exist
    and the manifests it names validate."""
    bad = []
    r = subprocess.run(["sh", "-n", "-c", cmd], capture_output=True, text=True)
    if r.returncode:
        bad.append(f"sh -n: {r.stderr.strip()}")
    for argv in simple_commands(cmd):
        while argv and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", argv[0]):
            argv = argv[1:]
        if argv and argv[0] == "make":
            targets = set(re.findall(r"^([\w.-]+):", open(os.path.join(root, "Makefile")).read(), re.M))
            bad += [f"make has no target '{w}'" for w in argv[1:] if "=" not in w and not w.startswith("-")
                    and w not in targets]
            continue
        if not argv or os.path.basename(argv[0]) != "bench" or len(argv) < 2:
            continue
        # this bench: the one the command names where it is here, else the one on PATH, else ./bench
        bench = argv[0] if os.path.exists(argv[0]) else shutil.which("bench") or os.path.abspath("bench")
        h = subprocess.run([bench, argv[1], "-h"], capture_output=True, text=True)
        if h.returncode:
            bad.append(f"'{argv[0]} {argv[1]} -h' exits {h.returncode}")
            continue
        for w in argv[2:]:
            if w.startswith("-") and w != "-":
                opt = w.split("=")[0]
                if not re.search(r"(^|[\s,\[|])" + re.escape(opt) + r"($|[\s,=\]|])", h.stdout):
                    bad.append(f"'{argv[1]}' has no option {opt}")
            elif re.fullmatch(r"manifests/[\w.+-]+\.yaml", w):
                v = subprocess.run([bench, "validate", "-q", w], capture_output=True, text=True)
                if v.returncode:
                    bad.append(f"{w} does not validate: {v.stderr.strip()[:200]}")
    return bad


def run(root, files):
    n = fails = 0

    def tap(good, what, detail=""):
        nonlocal n, fails
        n += 1
        fails += not good
        print(f"{'ok' if good else 'not ok'} {n} - {what}")
        for line in detail.splitlines()[-15:]:
            print(f"#   {line}")
        sys.stdout.flush()

    for path in files:
        rel = os.path.relpath(path, root)
        for line, annot, cmd in commands(path):
            kind, exits, tests = parse_annot(annot)
            short = cmd.split("\n")[0]
            short = short if len(short) <= 110 else short[:107] + "..."
            where = f"{rel}:{line}: {short}"
            if kind == "bad":
                tap(False, f"{where}: unknown annotation 'docs-test: {annot}'")
            elif kind == "elsewhere":
                missing = [t for t in tests if not os.path.exists(os.path.join(root, t))]
                try:
                    bad = [f"the test named does not exist: {t}" for t in missing] + check_elsewhere(root, cmd)
                except OSError as e:
                    bad = [f"cannot check it: {e}"]
                tap(not bad, f"{where} (checked; run by {' '.join(tests)})", "\n".join(bad))
            else:
                try:
                    r = subprocess.run(["sh", "-c", cmd], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                       timeout=TIMEOUT)
                    rc, err = r.returncode, (r.stdout[-1500:] + r.stderr[-2500:])
                except subprocess.TimeoutExpired:
                    rc, err = "timeout", f"still running after {TIMEOUT}s"
                good = rc in exits
                tap(good, f"{where} (exit {rc})", "" if good else err)
    return n, fails


def main(argv):
    if len(argv) >= 2 and argv[1] == "list":
        for path in argv[2:]:
            for line, annot, cmd in commands(path):
                print(f"{path}:{line}: {'[' + annot + '] ' if annot else ''}{cmd}")
        return 0
    if len(argv) >= 4 and argv[1] == "run" and argv[2] == "--root":
        n, fails = run(argv[3], [os.path.abspath(p) for p in argv[4:]])
        if n == 0:
            print("not ok 1 - no command found in " + " ".join(argv[4:]))
            return 1
        return 1 if fails else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
