#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Open a local HTML page in headless Chromium and report what happened.

    browse.py PAGE.html SHOT.png > facts.json

Drives Debian's `chromium` over the DevTools protocol on a pipe
(--remote-debugging-pipe: fd 3 in, fd 4 out, NUL-terminated JSON; no
websocket library needed).  The page is loaded from its file:// URL in a
1400 px wide viewport with every proxy pointed at a dead port, then:

  - every request the page made (Network.requestWillBeSent) is listed:
    anything but the page itself is a request that left it;
  - console errors and warnings, uncaught exceptions and browser log
    errors (a Content-Security-Policy violation is one) are listed;
  - the DOM after the scripts ran is probed (the expression below);
  - a full-page screenshot at 1400 px width, taken before the pointer
    moved, is written to SHOT.png;
  - the pointer is moved over the middle of the first timeline and the
    tooltip's text read back; the first chain card's timeline link is
    clicked and the highlighted interval read back; a numeric table
    header is clicked and the sorted column read back.

The facts go to stdout as one JSON object; the exit status is 0 when the
browser answered, 2 when it could not be driven.
"""
import base64
import json
import os
import subprocess
import sys
import tempfile
import time

PROBE = r"""(() => {
  const q = (s, r) => Array.from((r || document).querySelectorAll(s));
  return {
    timelines: q('svg.timeline').map(s => ({
      node: s.getAttribute('data-node'),
      series: q('g.op-series', s).map(g => g.getAttribute('data-op')),
      drawn: q('g.op-series path.p99', s).filter(p => /[ML]/.test(p.getAttribute('d') || '')).length,
      intervals: q('rect.anomaly', s).map(r => +r.getAttribute('data-rank')),
      interval_px: q('rect.anomaly', s).map(r => r.getBoundingClientRect().width),
      lanes: q('g.lane', s).map(g => g.getAttribute('data-signal')),
    })),
    cards: q('article.chain').map(a => ({
      rank: +a.getAttribute('data-rank'),
      pattern: a.getAttribute('data-pattern'),
      culprit: (a.querySelector('.culprit-name') || {}).textContent || '',
      link: (a.querySelector('a.goto') || {}).textContent || '',
    })),
    verdict: (document.getElementById('verdict') || {}).textContent || '',
    loss: (document.getElementById('loss') || {}).textContent || '',
    op_rows: q('#op-table tbody tr').map(r => r.cells[r.cells.length - 9].textContent),
    proc_rows: q('#proc-table tbody tr').length,
    icicles: q('.icicle').map(d => ({op: d.getAttribute('data-op'), boxes: q('div', d).length})),
    skews: q('.skew[data-offset-ns]').map(p => +p.getAttribute('data-offset-ns')),
    node_lanes: q('g.node-lane').length,
    width: document.documentElement.scrollWidth,
    height: document.documentElement.scrollHeight,
  };
})()"""

HOVER = r"""(() => {
  const r = document.querySelector('svg.timeline rect.hover');
  if (!r) return null;
  const b = r.getBoundingClientRect();
  r.scrollIntoView({block: 'center'});
  const c = r.getBoundingClientRect();
  return {x: c.left + c.width / 2, y: c.top + Math.min(c.height / 4, 80)};
})()"""

AFTER_HOVER = r"""(() => { const t = document.getElementById('tip');
  return {shown: !t.hidden, text: t.textContent,
          cursor: document.querySelector('svg.timeline .cursor').getAttribute('visibility')}; })()"""

CLICK = r"""(() => { const a = document.querySelector('a.goto'); if (!a) return null; a.click();
  const h = document.querySelector('rect.anomaly.hl');
  return {target: a.getAttribute('data-iv'), highlighted: h ? h.id : null, hash: location.hash}; })()"""

SORT = r"""(() => { const t = document.getElementById('op-table'); if (!t) return null;
  const th = Array.from(t.tHead.rows[0].cells).find(c => c.textContent === 'Calls');
  th.click();
  const col = th.cellIndex;
  return {order: th.getAttribute('aria-sort'),
          values: Array.from(t.tBodies[0].rows).map(r => +r.cells[col].getAttribute('data-v'))}; })()"""


class Browser:
    def __init__(self, profile):
        to_b_r, self.to_b = os.pipe()
        self.from_b, from_b_w = os.pipe()

        def fds():
            # out of the way first: either end may sit on fd 3 or 4
            a, b = os.dup(to_b_r), os.dup(from_b_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        args = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--user-data-dir=" + profile, "--remote-debugging-pipe",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-default-apps", "--disable-extensions",
                "--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
                "--window-size=1400,900", "about:blank"]
        self.p = subprocess.Popen(args, preexec_fn=fds, stdout=subprocess.DEVNULL,
                                  stderr=open(os.path.join(profile, "stderr.txt"), "w"),
                                  close_fds=True, pass_fds=(3, 4))
        os.close(to_b_r)
        os.close(from_b_w)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def _read(self, deadline):
        while b"\0" not in self.buf:
            if time.time() > deadline:
                raise TimeoutError("chromium did not answer")
            chunk = os.read(self.from_b, 1 << 16)
            if not chunk:
                raise EOFError("chromium closed the pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None, timeout=30):
        self.next_id += 1
        m = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            m["sessionId"] = session
        os.write(self.to_b, json.dumps(m).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            r = self._read(deadline)
            if r.get("id") == self.next_id:
                if "error" in r:
                    raise RuntimeError("%s: %s" % (method, r["error"]))
                return r.get("result", {})
            self.events.append(r)

    def wait_event(self, name, timeout=30):
        deadline = time.time() + timeout
        for i, e in enumerate(self.events):
            if e.get("method") == name:
                return self.events.pop(i)
        while True:
            e = self._read(deadline)
            if e.get("method") == name:
                return e
            self.events.append(e)

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def evaluate(br, s, expr):
    r = br.call("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                     "awaitPromise": True}, s)
    if "exceptionDetails" in r:
        raise RuntimeError("probe failed: %s" % json.dumps(r["exceptionDetails"])[:400])
    return r["result"].get("value")


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: browse.py PAGE.html SHOT.png\n")
        return 2
    page = "file://" + os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="ingero-browse.") as prof:
        br = Browser(prof)
        try:
            target = br.call("Target.createTarget", {"url": "about:blank"})["targetId"]
            s = br.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            for m in ("Page.enable", "Runtime.enable", "Log.enable", "Network.enable"):
                br.call(m, {}, s)
            br.call("Emulation.setDeviceMetricsOverride",
                    {"width": 1400, "height": 900, "deviceScaleFactor": 1, "mobile": False}, s)
            br.call("Page.navigate", {"url": page}, s)
            br.wait_event("Page.loadEventFired")
            facts = {"dom": evaluate(br, s, PROBE)}
            # the page as it opens, before the pointer and clicks change it
            lm = br.call("Page.getLayoutMetrics", {}, s)
            size = lm.get("cssContentSize") or lm["contentSize"]
            shot = br.call("Page.captureScreenshot",
                           {"format": "png", "captureBeyondViewport": True,
                            "clip": {"x": 0, "y": 0, "width": 1400,
                                     "height": size["height"], "scale": 1}}, s, timeout=60)
            with open(sys.argv[2], "wb") as f:
                f.write(base64.b64decode(shot["data"]))
            at = evaluate(br, s, HOVER)
            if at:
                for x in (at["x"] - 3, at["x"]):
                    br.call("Input.dispatchMouseEvent",
                            {"type": "mouseMoved", "x": x, "y": at["y"]}, s)
                facts["hover"] = evaluate(br, s, AFTER_HOVER)
                br.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": 1, "y": 1}, s)
            facts["click"] = evaluate(br, s, CLICK)
            facts["sort"] = evaluate(br, s, SORT)
            # the last events (a late request, a late error) before reading them
            evaluate(br, s, "new Promise(r => setTimeout(r, 300))")
        except Exception as e:
            sys.stderr.write("browse.py: %s\n" % e)
            br.close()
            return 2
        br.close()
    reqs, errors = [], []
    for e in br.events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Network.requestWillBeSent":
            reqs.append(p["request"]["url"])
        elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
            errors.append("console.%s: %s" % (p["type"], " ".join(
                str(a.get("value", a.get("description", ""))) for a in p.get("args", []))))
        elif m == "Runtime.exceptionThrown":
            errors.append("exception: %s" % p["exceptionDetails"].get("text", ""))
        elif m == "Log.entryAdded" and p["entry"].get("level") in ("error", "warning"):
            errors.append("log.%s: %s" % (p["entry"]["level"], p["entry"].get("text", "")))
    facts["page"] = page
    facts["requests"] = reqs
    facts["left_page"] = [u for u in reqs if u != page]
    facts["errors"] = errors
    json.dump(facts, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
