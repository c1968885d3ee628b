#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What `chromium --headless --no-sandbox --disable-gpu` does with --dump-dom, --screenshot=FILE, --window-size=W,H and
--hide-scrollbars, through one chromium for all of a test's pages instead of one a page (a chromium start costs
about 2 s of CPU; the tests load some forty pages). tests/cli/lib.sh's `headless` calls it:

  headless.py DIR [--window-size=W,H] [--hide-scrollbars] (--dump-dom | --screenshot=FILE) URL
  headless.py DIR --quit

DIR (the test's scratch directory) holds the server's lock, log and chromium profile; the first call starts the
server (chromium under the DevTools protocol over a pipe, --remote-debugging-pipe, and a UNIX socket for the calls
under /tmp, named by DIR), later calls use it. Each page is loaded in a new tab whose viewport is the window size
asked, exactly (default 800x600; chromium's own --window-size makes a window at least 500 wide whose frame takes some
of its height, which a page's script can see), after its load event the DOM is printed (the doctype and
document.documentElement.outerHTML, as --dump-dom prints them) or the viewport saved as PNG (as --screenshot saves
it), and the tab closed. Chromium gets 60 s for each call and for a page's load; past that, or when it has died, the
call fails and the next one gets a new chromium. The server ends on --quit (lib.sh's finish), when DIR is removed,
when the process HEADLESS_OWNER names (the test's shell) is gone, or after 10 minutes without a call. Exit status:
0, or 1 with the reason on stderr.
"""
import base64
import fcntl
import hashlib
import json
import os
import select
import socket
import subprocess
import sys
import time

IDLE_S = 600
WAIT_S = 60  # the longest chromium may take to answer a call or to load a page
# what --dump-dom prints: the doctype, if any, on a line of its own, then the document element
DUMP_DOM = ("(document.doctype ? new XMLSerializer().serializeToString(document.doctype) + '\\n' : '')"
            " + document.documentElement.outerHTML")


class Silent(RuntimeError):
    """chromium said nothing within WAIT_S"""


class Chromium:
    """One chromium and its DevTools pipe (fd 3 its commands, fd 4 its answers; messages end with a NUL)."""

    def __init__(self, profile):
        cmd_r, self.cmd_w = os.pipe()
        self.ans_r, ans_w = os.pipe()
        def fds():  # the child's fds 3 and 4 (by way of fds above both, so that neither overwrites the other)
            a, b = fcntl.fcntl(cmd_r, fcntl.F_DUPFD, 10), fcntl.fcntl(ans_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)
        # its temporary files (the profile's singleton socket, /tmp/org.chromium.Chromium.* otherwise, which a killed
        # chromium leaves behind) beside the profile, in the test's scratch directory
        tmp = profile + "-tmp"
        os.makedirs(tmp, exist_ok=True)
        self.proc = subprocess.Popen(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--user-data-dir=" + profile, "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=fds, pass_fds=(3, 4),  # (the fds are closed after preexec_fn, but these)
            env=dict(os.environ, TMPDIR=tmp))
        os.close(cmd_r)
        os.close(ans_w)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def close(self):
        """chromium ended and its pipe closed (again: nothing)"""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for fd in (self.cmd_w, self.ans_r):
            try:
                os.close(fd)
            except OSError:
                pass

    def _read(self, deadline):
        while b"\0" not in self.buf:
            if not select.select([self.ans_r], [], [], max(0, deadline - time.time()))[0]:
                raise Silent(f"chromium answered nothing within {WAIT_S} s")
            chunk = os.read(self.ans_r, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed its DevTools pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + WAIT_S
        while True:
            m = self._read(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error'].get('message')}")
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method, session):
        deadline = time.time() + WAIT_S
        while True:
            for i, m in enumerate(self.events):
                if m.get("method") == method and m.get("sessionId") == session:
                    del self.events[i]
                    return m
            try:
                self.events.append(self._read(deadline))
            except Silent:  # (a closed pipe keeps its own message)
                raise Silent(f"no {method} within {WAIT_S} s") from None

    def page(self, url, width, height, hide_scrollbars, shot):
        """the DOM after the load event, or the viewport's PNG (shot)"""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        s = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        try:
            self.call("Page.enable", session=s)
            self.call("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, s)
            if hide_scrollbars:
                self.call("Emulation.setScrollbarsHidden", {"hidden": True}, s)
            self.events = [m for m in self.events if m.get("sessionId") != s]
            nav = self.call("Page.navigate", {"url": url}, s)
            if nav.get("errorText"):
                raise RuntimeError(f"{url}: {nav['errorText']}")
            self.wait_event("Page.loadEventFired", s)
            if shot:
                return base64.b64decode(self.call("Page.captureScreenshot", {"format": "png"}, s)["data"])
            r = self.call("Runtime.evaluate", {"expression": DUMP_DOM, "returnByValue": True}, s)
            return r["result"]["value"].encode()
        finally:
            self.call("Target.closeTarget", {"targetId": target})
            self.events = [m for m in self.events if m.get("sessionId") != s]


def parse(args):
    """(url, width, height, hide_scrollbars, screenshot file or None) from chromium's options"""
    width, height, hide, shot, url = 800, 600, False, None, None
    for a in args:
        if a.startswith("--window-size="):
            width, height = (int(x) for x in a.split("=", 1)[1].split(","))
        elif a == "--hide-scrollbars":
            hide = True
        elif a.startswith("--screenshot="):
            shot = a.split("=", 1)[1]
        elif a == "--dump-dom":
            pass
        elif a.startswith("-"):
            raise ValueError(f"headless.py: unknown option {a}")
        else:
            url = a
    if not url:
        raise ValueError("headless.py: no URL")
    return url, width, height, hide, shot


def socket_path(d):
    """DIR's server's socket: under /tmp, named by DIR (a UNIX socket's path holds at most 107 bytes; DIR may be
    longer)"""
    return "/tmp/bench-headless-%s.sock" % hashlib.sha256(os.path.realpath(d).encode()).hexdigest()[:16]


def serve(d):
    sock_path = socket_path(d)
    owner = int(os.environ.get("HEADLESS_OWNER", "0") or 0)
    profile = os.path.join(d, "headless-profile")
    chrome = Chromium(profile)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        os.unlink(sock_path + ".new")
    except FileNotFoundError:
        pass
    srv.bind(sock_path + ".new")
    srv.listen(4)
    os.rename(sock_path + ".new", sock_path)  # (a client sees the socket only once it listens)
    srv.settimeout(0.5)
    last = time.time()
    try:
        while os.path.isdir(d) and time.time() - last < IDLE_S:
            if owner:
                try:
                    os.kill(owner, 0)
                except ProcessLookupError:
                    break
            try:
                conn, _ = srv.accept()
            except socket.timeout:
                continue
            last = time.time()
            with conn:
                conn.settimeout(None)
                req = json.loads(conn.makefile("rb").readline())
                if req.get("quit"):
                    chrome.close()  # (before the answer: the caller removes the profile next)
                    conn.sendall(b'{"rc": 0, "out": ""}\n')
                    break
                try:
                    url, w, h, hide, shot = parse(req["args"])
                    data = chrome.page(url, w, h, hide, shot)
                    if shot:
                        with open(shot, "wb") as f:
                            f.write(data)
                        data = b""
                    ans = {"rc": 0, "out": data.decode()}
                except Exception as e:  # noqa: BLE001 -- any failure is the call's, the server goes on
                    ans = {"rc": 1, "err": str(e)}
                    if isinstance(e, RuntimeError):  # chromium gone or stuck: the next call gets a new one
                        chrome.close()
                        chrome = Chromium(profile)
                conn.sendall(json.dumps(ans).encode() + b"\n")
    finally:
        chrome.close()
        srv.close()
        try:
            os.unlink(sock_path)
        except FileNotFoundError:
            pass


def connect(d):
    """a connection to DIR's server, started here if there is none (a server that cannot start fails the call at
    once, with the end of its log)"""
    sock_path, log = socket_path(d), os.path.join(d, "headless.log")
    with open(os.path.join(d, "headless.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for attempt in range(2):
            c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                c.connect(sock_path)
                return c
            except OSError:
                c.close()
            if attempt:
                break
            try:
                os.unlink(sock_path)
            except FileNotFoundError:
                pass
            with open(log, "a") as err:
                srv = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--serve", d],
                                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                                       start_new_session=True)
            end = time.time() + WAIT_S
            while not os.path.exists(sock_path) and time.time() < end and srv.poll() is None:
                time.sleep(0.05)
    with open(log, errors="replace") as f:
        tail = "".join(f.readlines()[-5:])
    raise RuntimeError(f"headless.py: no server at {sock_path}; {log} ends:\n{tail}")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        serve(sys.argv[2])
        return 0
    if len(sys.argv) < 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    d, args = sys.argv[1], sys.argv[2:]
    if args == ["--quit"]:  # the server ends with its chromium, if there is one
        if os.path.exists(socket_path(d)):
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as c:
                    c.settimeout(2 * WAIT_S)
                    c.connect(socket_path(d))
                    c.sendall(b'{"quit": true}\n')
                    c.makefile("rb").readline()
            except OSError:
                pass
        return 0
    os.makedirs(d, exist_ok=True)
    try:
        parse(args)
        with connect(d) as c:
            c.settimeout(3 * WAIT_S + 30)  # (a page: its calls and its load, each within WAIT_S)
            # (the server's directory is not the caller's: the screenshot's path made absolute)
            args = ["--screenshot=" + os.path.abspath(a.split("=", 1)[1]) if a.startswith("--screenshot=") else a
                    for a in args]
            c.sendall(json.dumps({"args": args}).encode() + b"\n")
            ans = json.loads(c.makefile("rb").readline())
    except (ValueError, RuntimeError, OSError) as e:  # (socket.timeout is an OSError)
        print(e, file=sys.stderr)
        return 1
    if ans["rc"]:
        print(ans.get("err", ""), file=sys.stderr)
        return ans["rc"]
    sys.stdout.write(ans["out"])
    if ans["out"]:
        sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
