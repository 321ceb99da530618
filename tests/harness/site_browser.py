#!/usr/bin/python3
"""Checks exported failmap sites in one headless Chromium session (tests/e2e/site_browser.sh).

Drives Debian's chromium over the DevTools protocol (python3-websocket), with
the flags a root user on a closed network needs, a fresh profile, and nothing
downloaded. For every HTML page of every site given:

  * no console error, no uncaught exception, no script element, every resource
    loaded from a file inside the site's folder, the stylesheet applied;
  * every link (a href, link href) resolves to a file inside the folder, and a
    #fragment to an element of that page; the one exception, a mechanism
    page's link to its bug report (a.bug-report), is an https address, and
    every mechanism page has exactly one;
  * a case page's source blocks (pre) take the page's width at 1280 px
    (wider than the 46rem reading column);
  * a leaderboard page (leaderboard.html, where the site has one): each
    inline SVG chart fits the page at both widths and is styled by the
    stylesheet (its bars filled with the accent colour);
  * no horizontal scroll at 1280 and at 390 CSS pixels wide;
  * for a case page: its innerText against the text page of the same case
    and tier (`failmap export --format pages`): every non-empty line of the
    text page appears in the rendered text, in order. Lines are compared
    without their leading and trailing whitespace (the text page strips the
    source's indentation), a table row `| a | b | c | d |` as the cells the
    browser separates by tabs, the table's `|---|` rule line, which is
    markdown syntax and no content, left out; where the text page runs two
    parts into one line (`Exit 1` and the source's first line, `Sign in to
    the archive ↗` and `Verification & scope`) they may stand on two
    consecutive lines.

--hostile PAGE JSON: PAGE is a case page whose case holds markup, quotes,
ampersands and control characters; JSON maps CSS selectors to the text each
element must show (textContent, exactly). The page must also have run no
script (the case's markup sets window.__failmap_pwned if it runs).

--shots DIR CASE: writes DIR/CASE-1280.png (full page) and DIR/CASE-390.png
(full page at 390 px) of the case's page in the first site.

Prints one line per site and a summary; exits 1 on any failure (each named).
"""
import argparse
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

import websocket

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--mute-audio",
         "--remote-debugging-port=0"]
WIDE, NARROW = 1280, 390

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg, file=sys.stderr)


class Browser:
    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="failmap-chromium-")
        self.proc = subprocess.Popen(["/usr/bin/chromium", *FLAGS, "--user-data-dir=" + self.profile, "about:blank"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.time() + 60
        while True:
            if os.path.exists(port_file):
                lines = open(port_file).read().split()
                if len(lines) >= 2:
                    break
            if self.proc.poll() is not None or time.time() > deadline:
                raise SystemExit("chromium did not start (exit %s)" % self.proc.poll())
            time.sleep(0.05)
        targets = json.load(urllib.request.urlopen("http://127.0.0.1:%s/json/list" % lines[0], timeout=30))
        page = next(t for t in targets if t["type"] == "page")
        self.ws = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=60, suppress_origin=True)
        self.next_id = 0
        self.events = []
        for domain in ("Page", "Runtime", "Log"):
            self.call(domain + ".enable")

    def call(self, method, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise RuntimeError("%s: %s" % (method, msg["error"]))
                return msg["result"]
            self.events.append(msg)

    def eval(self, expression):
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in r:
            raise RuntimeError("evaluating %s: %s" % (expression, r["exceptionDetails"]))
        return r["result"].get("value")

    def width(self, w):
        self.call("Emulation.setDeviceMetricsOverride", width=w, height=900, deviceScaleFactor=1, mobile=w < 600)

    def load(self, url):
        """Navigates and waits for the load event; returns the console errors it caused."""
        self.events = []
        self.call("Page.navigate", url=url)
        while not any(e.get("method") == "Page.loadEventFired" for e in self.events):
            self.events.append(json.loads(self.ws.recv()))
        errors = []
        for e in self.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Log.entryAdded" and p["entry"]["level"] in ("error", "warning"):
                errors.append("%s: %s" % (p["entry"]["level"], p["entry"]["text"]))
            elif m == "Runtime.consoleAPICalled" and p["type"] in ("error", "warning", "assert"):
                errors.append("console.%s: %s" % (p["type"], [a.get("value") for a in p["args"]]))
            elif m == "Runtime.exceptionThrown":
                errors.append("exception: %s" % p["exceptionDetails"].get("text"))
        return errors

    def screenshot(self, path):
        size = self.call("Page.getLayoutMetrics")["cssContentSize"]
        shot = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=True,
                         clip={"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1})
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))

    def close(self):
        try:
            self.call("Browser.close")
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


PAGE_FACTS = """(() => {
  const links = [...document.querySelectorAll('a[href], link[href]')].map(a => a.getAttribute('href'));
  return {
    links,
    ids: [...document.querySelectorAll('[id]')].map(e => e.id),
    scripts: document.querySelectorAll('script, iframe, object, embed, img').length,
    resources: performance.getEntriesByType('resource').map(r => r.name),
    background: getComputedStyle(document.body).backgroundColor,
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
    text: document.body.innerText,
    pwned: window.__failmap_pwned !== undefined,
    bugReports: [...document.querySelectorAll('a.bug-report')].map(a => a.getAttribute('href')),
    preWidth: Math.max(0, ...[...document.querySelectorAll('pre')].map(e => e.getBoundingClientRect().width)),
    charts: [...document.querySelectorAll('svg.chart')].map(s => ({
      right: (s.closest('figure') || s).getBoundingClientRect().right,
      bars: s.querySelectorAll('rect.bar').length,
      fill: s.querySelector('rect.bar') ? getComputedStyle(s.querySelector('rect.bar')).fill : null,
    })),
  };
})()"""

STYLED_BACKGROUND = "rgb(251, 249, 244)"  # --paper of templates/site.css
ACCENT = "rgb(122, 46, 31)"  # --accent of templates/site.css


def expected_lines(text_page):
    out = []
    for line in text_page.split("\n"):
        s = line.strip()
        if not s or s == "|---|---|---|---|":
            continue
        if s.startswith("| ") and s.endswith(" |"):
            s = "\t".join(c.strip() for c in s[2:-2].split(" | "))
        out.append(s)
    return out


def check_text(name, rendered_text, text_page):
    """Every line of the text page in the rendered text, in order (see the module's doc)."""
    rendered = [l.strip() for l in rendered_text.split("\n")]
    rendered = [l for l in rendered if l]
    j = 0
    for want in expected_lines(text_page):
        k = j
        while k < len(rendered):
            if rendered[k] == want:
                j = k + 1
                break
            if (k + 1 < len(rendered) and want.startswith(rendered[k]) and len(rendered[k]) < len(want)
                    and want[len(rendered[k]):].strip() == rendered[k + 1]):
                j = k + 2
                break
            k += 1
        else:
            near = rendered[j:j + 3]
            fail("%s: text page line %r not found in the rendered text after line %d (next: %r)" % (name, want, j, near))
            return False
    return True


def site_pages(site):
    return sorted(f for f in os.listdir(site) if f.endswith(".html"))


def check_site(b, site, pages, tier):
    site = os.path.realpath(site)
    facts = {}
    for w in (WIDE, NARROW):
        b.width(w)
        for page in site_pages(site):
            url = "file://" + urllib.parse.quote(os.path.join(site, page))
            where = "%s tier, %s at %d px" % (tier, page, w)
            for e in b.load(url):
                fail("%s: %s" % (where, e))
            f = b.eval(PAGE_FACTS)
            # Against the width set, not innerWidth: a phone's browser zooms out to show a page wider than it.
            if f["scrollWidth"] > w or f["innerWidth"] != w:
                fail("%s: scrolls sideways (document %d px wide, window %d px)" % (where, f["scrollWidth"], f["innerWidth"]))
            if f["scripts"]:
                fail("%s: holds %d script/embedded element(s)" % (where, f["scripts"]))
            if f["pwned"]:
                fail("%s: a script ran" % where)
            if f["background"] != STYLED_BACKGROUND:
                fail("%s: the stylesheet is not applied (body background %s)" % (where, f["background"]))
            for r in f["resources"]:
                path = urllib.parse.unquote(urllib.parse.urlparse(r).path)
                if not r.startswith("file://") or not os.path.realpath(path).startswith(site + os.sep):
                    fail("%s: loads %s, outside the site's folder" % (where, r))
            for c in f["charts"]:
                if c["right"] > w:
                    fail("%s: a chart reaches %d px, past the page" % (where, c["right"]))
                if c["bars"] and c["fill"] != ACCENT:
                    fail("%s: chart bars are not styled (fill %s)" % (where, c["fill"]))
            if page.startswith("case-") and w == WIDE and f["preWidth"] < 1000:
                fail("%s: source blocks are %d px wide, not the page's width" % (where, f["preWidth"]))
            if w == WIDE:
                facts[page] = f
    checked = 0
    charts = 0
    for page, f in facts.items():
        charts += len(f["charts"])
        if page.startswith("mechanism-") and (len(f["bugReports"]) != 1 or not f["bugReports"][0].startswith("https://")):
            fail("%s: expected one https link to its bug report, found %r" % (page, f["bugReports"]))
        for href in f["links"]:
            if href in f["bugReports"] and href.startswith("https://"):
                continue
            u = urllib.parse.urlparse(href)
            if u.scheme or u.netloc or href.startswith("/"):
                fail("%s: link %r is not relative" % (page, href))
                continue
            target = page if not u.path else urllib.parse.unquote(u.path)
            path = os.path.realpath(os.path.join(site, target))
            if not path.startswith(site + os.sep) or not os.path.isfile(path):
                fail("%s: link %r does not resolve to a file inside the site" % (page, href))
            elif u.fragment and u.fragment not in facts.get(os.path.relpath(path, site), {}).get("ids", []):
                fail("%s: link %r names no element of %s" % (page, href, target))
        if page.startswith("case-"):
            case = page[len("case-"):-len(".html")]
            text_file = os.path.join(pages, case + ".txt")
            if not os.path.isfile(text_file):
                fail("%s: no text page %s to compare with" % (page, text_file))
                continue
            check_text("%s tier, %s" % (tier, page), f["text"], open(text_file, encoding="utf-8").read())
            checked += 1
    if "leaderboard.html" in facts and not charts:
        fail("%s tier: leaderboard.html holds no chart" % tier)
    print("%s tier: %d page(s) loaded at %d and %d px, %d case page(s) compared with their text pages, %d chart(s)"
          % (tier, len(facts), WIDE, NARROW, checked, charts))
    return checked


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--site", nargs=3, action="append", metavar=("TIER", "SITE_DIR", "PAGES_DIR"), default=[])
    ap.add_argument("--hostile", nargs=2, metavar=("PAGE", "EXPECTED_JSON"))
    ap.add_argument("--shots", nargs=2, metavar=("DIR", "CASE"))
    args = ap.parse_args()
    started = time.time()
    b = Browser()
    try:
        compared = 0
        for tier, site, pages in args.site:
            compared += check_site(b, site, pages, tier)
        if args.hostile:
            page, expected = args.hostile
            b.width(WIDE)
            for e in b.load("file://" + urllib.parse.quote(os.path.realpath(page))):
                fail("hostile page: %s" % e)
            if b.eval("window.__failmap_pwned !== undefined"):
                fail("hostile page: a script of the case's text ran")
            if b.eval("document.querySelectorAll('script, img, iframe, object, embed').length"):
                fail("hostile page: the case's markup became elements")
            for selector, text in json.load(open(expected, encoding="utf-8")).items():
                got = b.eval("[...document.querySelectorAll(%s)].map(e => e.textContent)" % json.dumps(selector))
                if text not in (got or []):
                    fail("hostile page: %s shows %r, expected %r" % (selector, got, text))
            print("hostile page: no script ran, %d text(s) shown as written" % len(json.load(open(expected))))
        if args.shots:
            out, case = args.shots
            os.makedirs(out, exist_ok=True)
            page = "file://" + urllib.parse.quote(os.path.realpath(os.path.join(args.site[0][1], "case-%s.html" % case)))
            for w in (WIDE, NARROW):
                b.width(w)
                b.load(page)
                b.screenshot(os.path.join(out, "%s-%d.png" % (case, w)))
            print("screenshots: %s/%s-%d.png, %s-%d.png" % (out, case, WIDE, case, NARROW))
    finally:
        b.close()
    print("%d case page(s) compared, %d failure(s), %.1f s in the browser" % (compared, len(failures), time.time() - started))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
