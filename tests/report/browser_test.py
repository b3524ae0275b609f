#!/usr/bin/env python3
"""Opens an HTML report in headless Chromium and checks that it renders.

Usage: browser_test.py REPORT.html WORKDIR [--expect TEXT]... [--min-items N] [--probe-error]
                       [--interact]

Three runs of the browser: --dump-dom (the page's ready marker, the slice count, the expected
table text, no recorded script error), console logging on stderr (no uncaught error or console
error from the page), and a screenshot (a non-empty PNG of the right size). --probe-error also
checks that these checks notice a page that throws. --interact runs interact.js in the page
(hover, click, wheel, drag, buttons, table sort on the synthetic report) and checks its verdict.

Chromium missing: exit 77 (skipped), or 1 when PERFMARKER_REQUIRE_BROWSER=1.
"""
import argparse
import html
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

SKIP = 77
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--virtual-time-budget=5000"]


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def run_browser(chromium, workdir, extra, page):
    profile = tempfile.mkdtemp(prefix="profile-", dir=workdir)
    command = [chromium] + FLAGS + ["--user-data-dir=" + profile] + extra + ["file://" + page]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    shutil.rmtree(profile, ignore_errors=True)
    return result


def embedded_items(page):
    text = open(page, encoding="utf-8").read()
    match = re.search(r'<script type="application/json" id="timeline-data">(.*?)</script>',
                      text, re.S)
    if not match:
        raise AssertionError("no timeline-data block in " + page)
    return len(json.loads(match.group(1))["items"])


def check_dom(chromium, workdir, page, expected_texts, min_items):
    result = run_browser(chromium, workdir, ["--dump-dom"], page)
    dom = result.stdout
    problems = []
    if result.returncode != 0:
        problems.append("chromium --dump-dom exited with %d: %s" % (result.returncode,
                                                                   result.stderr[-2000:]))
    if 'data-ready="1"' not in dom:
        problems.append("the page never set data-ready=\"1\"")
    errors = re.search(r'data-errors="(\d+)"', dom)
    if errors:
        box = re.search(r'<div id="errors"[^>]*>(.*?)</div>', dom, re.S)
        problems.append("the page recorded %s script error(s): %s"
                        % (errors.group(1), html.unescape(box.group(1)) if box else "?"))
    items = re.search(r'data-items="(\d+)"', dom)
    expected_items = embedded_items(page)
    if not items or int(items.group(1)) != expected_items:
        problems.append("data-items is %s, the page embeds %d slices"
                        % (items.group(1) if items else "missing", expected_items))
    if expected_items < min_items:
        problems.append("only %d slices, expected at least %d" % (expected_items, min_items))
    for text in expected_texts:
        if text not in dom:
            problems.append("the rendered page lacks %r" % text)
    return problems


def check_console(chromium, workdir, page):
    result = run_browser(chromium, workdir, ["--enable-logging=stderr", "--v=0", "--dump-dom"], page)
    bad = [line for line in result.stderr.splitlines()
           if "Uncaught" in line or ("CONSOLE" in line and ":ERROR:" in line)
           or re.search(r'CONSOLE\(\d+\)\].*"[^"]*[Ee]rror', line)]
    return ["console: " + line for line in bad]


def check_screenshot(chromium, workdir, page):
    shot = os.path.join(workdir, "report.png")
    if os.path.exists(shot):
        os.remove(shot)
    result = run_browser(chromium, workdir, ["--screenshot=" + shot, "--window-size=1400,900",
                                             "--hide-scrollbars"], page)
    if not os.path.exists(shot):
        return ["no screenshot written: " + result.stderr[-2000:]]
    data = open(shot, "rb").read()
    if len(data) < 2000 or data[:8] != b"\x89PNG\r\n\x1a\n":
        return ["the screenshot is not a PNG or nearly empty (%d bytes)" % len(data)]
    width, height = struct.unpack(">II", data[16:24])
    if width < 1000 or height < 600:
        return ["the screenshot is %dx%d, expected about 1400x900" % (width, height)]
    return []


def probe_error(chromium, workdir, page):
    """The checks above must fail on a page that throws: inject an error and look."""
    broken = os.path.join(workdir, "broken.html")
    text = open(page, encoding="utf-8").read()
    text = text.replace("</body>", "<script>null.probe();</script></body>", 1)
    open(broken, "w", encoding="utf-8").write(text)
    problems = []
    if not any("script error" in p for p in check_dom(chromium, workdir, broken, [], 0)):
        problems.append("probe: --dump-dom did not show the injected error")
    if not check_console(chromium, workdir, broken):
        problems.append("probe: the console log did not show the injected error")
    return problems


def interact(chromium, workdir, page):
    """Drives the page with synthetic events (interact.js) and reads its verdict."""
    driven = os.path.join(workdir, "interact.html")
    script = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "interact.js"),
                  encoding="utf-8").read()
    text = open(page, encoding="utf-8").read()
    open(driven, "w", encoding="utf-8").write(
        text.replace("</body>", "<script>" + script + "</script></body>", 1))
    result = run_browser(chromium, workdir, ["--dump-dom", "--window-size=1400,900"], driven)
    verdict = re.search(r'data-interact="([^"]*)"', result.stdout)
    if not verdict:
        return ["interact: no verdict (script did not finish)"]
    if verdict.group(1) != "ok":
        return ["interact: " + html.unescape(verdict.group(1))]
    return []


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("page")
    parser.add_argument("workdir")
    parser.add_argument("--expect", action="append", default=[])
    parser.add_argument("--min-items", type=int, default=1)
    parser.add_argument("--probe-error", action="store_true")
    parser.add_argument("--interact", action="store_true")
    args = parser.parse_args()

    chromium = find_chromium()
    if chromium is None:
        if os.environ.get("PERFMARKER_REQUIRE_BROWSER") == "1":
            print("FAIL: chromium not found and PERFMARKER_REQUIRE_BROWSER=1")
            return 1
        print("SKIP: chromium not found (apt-get install chromium)")
        return SKIP
    os.makedirs(args.workdir, exist_ok=True)
    page = os.path.abspath(args.page)
    problems = check_dom(chromium, args.workdir, page, args.expect, args.min_items)
    problems += check_console(chromium, args.workdir, page)
    problems += check_screenshot(chromium, args.workdir, page)
    if args.probe_error:
        problems += probe_error(chromium, args.workdir, page)
    if args.interact:
        problems += interact(chromium, args.workdir, page)
    for problem in problems:
        print("FAIL: " + problem)
    if not problems:
        print("ok: %s rendered in %s" % (page, chromium))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
