"""Check the built documentation site in a headless browser (``make docs-check``).

Usage::

    python tools/docs_check.py [SITE_DIR] [--screenshots DIR]

SITE_DIR is the HTML build (default ``docs/_build/html``, made by ``make docs``). The site is served by a
local ``http.server`` on 127.0.0.1 (a free port) and opened in Debian's Chromium (``/usr/bin/chromium``)
driven by Playwright; Playwright's own browser download is never used. Without Chromium the script
installs it with ``apt-get`` when it runs as root and apt-get exists, and otherwise skips the browser
checks with one line (exit 0). Checked, one line per assertion:

* the index page loads;
* an algorithm page (``algorithms/duol.html``) has its mathematics rendered by MathJax (rendered elements
  present, no raw ``$$`` left in the text);
* a gallery page shows its figure (the image finished loading with a non-zero width);
* the API page of ``olkit.make`` loads and names it;
* the search page ``search.html?q=DUOL`` lists the DUOL page among its results;
* none of these pages logs a console error or fails to load a resource of the site;
* no internal link or image of any built HTML file is broken (the target file exists, and so does the
  anchor where the target is a page of the site).

Screenshots of the index and of the DUOL page are saved to ``docs/_build/screenshots/``. Exit status 0
when every assertion holds, 1 otherwise.
"""

import argparse
import functools
import html.parser
import http.server
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 60_000

FAILURES = []


def report(ok, what, detail=""):
    """Print one line for an assertion and remember a failure."""
    line = f"{'PASS' if ok else 'FAIL'} {what}" + (f": {detail}" if detail else "")
    print(line, flush=True)
    if not ok:
        FAILURES.append(line)
    return ok


# ---- links and images of the built files (no browser needed) ------------------------------------------


class _Refs(html.parser.HTMLParser):
    """The ids and the href/src references of one HTML file."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids = set()
        self.refs = []  # (attribute, value)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("id", "name") if tag == "a" else ("id",):
            if attrs.get(key):
                self.ids.add(attrs[key])
        for key in ("href", "src"):
            value = attrs.get(key)
            hint = tag == "link" and key == "href" and attrs.get("rel") in ("preconnect", "dns-prefetch")
            if value is None or hint:
                continue
            self.refs.append((tag, key, value))

    handle_startendtag = handle_starttag


@functools.cache
def _parse(path):
    parser = _Refs()
    parser.feed(Path(path).read_text(encoding="utf-8", errors="replace"))
    return parser


def _internal(value):
    """The (path, fragment) of a reference to the site itself, or None for an external one."""
    parts = urlsplit(value)
    if parts.scheme or parts.netloc or value.startswith(("mailto:", "javascript:", "data:", "tel:")):
        return None
    return unquote(parts.path), unquote(parts.fragment)


def check_links(site):
    """Every internal href/src of every built HTML file points to a file of the site (and to an existing id
    when it names an anchor of an HTML page). Returns (number of references, [problems])."""
    problems, count = [], 0
    for page in sorted(site.rglob("*.html")):
        if "_static" in page.relative_to(site).parts:
            continue
        for tag, key, value in _parse(str(page)).refs:
            ref = _internal(value)
            if ref is None:
                continue
            path, fragment = ref
            if not path and not fragment:
                continue
            count += 1
            target = page if not path else (page.parent / path).resolve()
            if target.is_dir():
                target = target / "index.html"
            where = f"{page.relative_to(site)}: {tag} {key}={value!r}"
            if not target.exists():
                problems.append(f"{where} -> missing file")
                continue
            try:
                target.relative_to(site.resolve())
            except ValueError:
                problems.append(f"{where} -> outside the site")
                continue
            if fragment and target.suffix == ".html" and fragment not in _parse(str(target)).ids:
                problems.append(f"{where} -> no id {fragment!r} in {target.relative_to(site.resolve())}")
    return count, problems


# ---- the browser ---------------------------------------------------------------------------------------


def find_chromium():
    """Path of Chromium, installing Debian's package when it is missing and apt-get is usable; else None."""
    if os.access(CHROMIUM, os.X_OK):
        return CHROMIUM
    apt = shutil.which("apt-get")
    if apt and hasattr(os, "geteuid") and os.geteuid() == 0:
        print("docs-check: /usr/bin/chromium is missing; installing Debian's chromium with apt-get", flush=True)
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run([apt, "update", "-qq"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.run(
            [apt, "install", "-y", "-qq", "chromium"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
    return CHROMIUM if os.access(CHROMIUM, os.X_OK) else None


NOT_FOUND = []  # paths the local server answered 404, named in the console-error lines


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send_error(self, code, message=None, explain=None):
        if code == 404:
            NOT_FOUND.append(self.path)
        super().send_error(code, message, explain)


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        """A browser that closes a connection before the answer is sent (it navigated on) is not an error of
        the site; anything else is printed as the standard server prints it."""
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


def serve(site):
    """Serve ``site`` on 127.0.0.1 on a free port in a background thread; returns (server, base URL)."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = _QuietServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


class _Watch:
    """Console errors, page errors and failed requests of the site, for one page."""

    def __init__(self, page, base):
        self.errors = []
        page.on("console", lambda msg: msg.type == "error" and self.errors.append(f"console: {msg.text}"))
        page.on("pageerror", lambda exc: self.errors.append(f"page error: {exc}"))
        page.on("requestfailed", lambda req: self.errors.append(f"request failed: {req.url} ({req.failure})"))
        page.on(
            "response",
            lambda resp: (
                resp.status >= 400
                and resp.url.startswith(base)
                and self.errors.append(f"HTTP {resp.status}: {resp.url}")
            ),
        )


def _open(context, base, path, pages):
    page = context.new_page()
    watch = _Watch(page, base)
    before = len(NOT_FOUND)
    response = page.goto(base + path, wait_until="load", timeout=TIMEOUT_MS)
    page.wait_for_load_state("networkidle", timeout=TIMEOUT_MS)
    watch.errors += [f"404 for {missing}" for missing in NOT_FOUND[before:]]
    pages.append((path, watch))
    return page, response


def browser_checks(site, base, shots):
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    pages = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        try:
            # the index
            page, response = _open(context, base, "index.html", pages)
            title = page.title()
            report(
                response is not None and response.ok and "olkit" in title,
                "index loads",
                f"HTTP {response.status if response else '?'}, title {title!r}",
            )
            page.screenshot(path=str(shots / "index.png"), full_page=True)

            # an algorithm page: MathJax output present, no raw $$ left
            if (site / "algorithms" / "duol.html").exists():
                page, response = _open(context, base, "algorithms/duol.html", pages)
                try:
                    page.wait_for_function(
                        "() => document.querySelectorAll('mjx-container').length > 0", timeout=TIMEOUT_MS
                    )
                    page.wait_for_function(
                        "() => !window.MathJax || !MathJax.startup || !MathJax.startup.promise"
                        " || MathJax.startup.promise.then(() => true)",
                        timeout=TIMEOUT_MS,
                    )
                except PlaywrightError:
                    pass
                rendered = page.locator("mjx-container").count()
                text = page.inner_text("article") if page.locator("article").count() else page.inner_text("body")
                raw = text.count("$$") + text.count("\\[") + text.count("\\(")
                report(
                    rendered > 0 and raw == 0,
                    "algorithms/duol.html renders its math",
                    f"{rendered} MathJax elements, {raw} raw delimiters left",
                )
                page.screenshot(path=str(shots / "duol.png"), full_page=True)
            else:
                report(False, "algorithms/duol.html renders its math", "the page was not built")

            # a gallery page: its figure is loaded
            gallery = sorted(p for p in (site / "auto_examples").glob("*.html") if p.name != "index.html")
            figure_page = next(
                (
                    p
                    for p in gallery
                    if "sphx-glr-single-img" in p.read_text(encoding="utf-8")
                    or "sphx-glr-multi-img" in p.read_text(encoding="utf-8")
                ),
                None,
            )
            if figure_page is None:
                report(False, "a gallery page shows its figure", "no built gallery page has a figure")
            else:
                path = figure_page.relative_to(site).as_posix()
                page, response = _open(context, base, path, pages)
                images = page.eval_on_selector_all(
                    "img.sphx-glr-single-img, img.sphx-glr-multi-img",
                    "els => els.map(e => [e.getAttribute('src'), e.complete, e.naturalWidth])",
                )
                good = [i for i in images if i[1] and i[2] > 0]
                report(
                    bool(images) and len(good) == len(images),
                    f"{path} shows its figure",
                    f"{len(good)} of {len(images)} images loaded (naturalWidth {[i[2] for i in images]})",
                )

            # the API page of olkit.make
            path = "api/generated/olkit.make.html"
            if (site / path).exists():
                page, response = _open(context, base, path, pages)
                heading = page.inner_text("h1") if page.locator("h1").count() else ""
                named = page.locator("[id='olkit.make']").count() > 0
                report(
                    response is not None and response.ok and "make" in heading and named,
                    f"{path} names olkit.make",
                    f"h1 {heading.strip()!r}, anchor #olkit.make {'present' if named else 'missing'}",
                )
            else:
                report(False, "the API page of olkit.make loads", f"{path} was not built")

            # the search page lists the DUOL page
            page, response = _open(context, base, "search.html?q=DUOL", pages)
            try:
                page.wait_for_function(
                    "() => [...document.querySelectorAll('#search-results a')]"
                    ".some(a => a.getAttribute('href') && a.getAttribute('href').includes('algorithms/duol.html'))",
                    timeout=TIMEOUT_MS,
                )
            except PlaywrightError:
                pass
            hrefs = page.eval_on_selector_all("#search-results a", "els => els.map(e => e.getAttribute('href'))")
            hits = [h for h in hrefs if h and "algorithms/duol.html" in h]
            report(
                bool(hits),
                "search.html?q=DUOL lists algorithms/duol.html",
                f"{len(hrefs)} result links, the DUOL page {'among them' if hits else 'missing'}",
            )

            page.wait_for_timeout(500)  # late console messages
        finally:
            context.close()
            browser.close()
    for path, watch in pages:
        report(not watch.errors, f"no console errors on {path}", "; ".join(watch.errors[:5]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", nargs="?", default=str(ROOT / "docs" / "_build" / "html"))
    parser.add_argument(
        "--screenshots", default=None, help="directory of the screenshots (default: SITE/../screenshots)"
    )
    args = parser.parse_args(argv)
    site = Path(args.site).resolve()
    if not (site / "index.html").is_file():
        print(f"FAIL no built site at {site} (run make docs first)")
        return 1
    shots = Path(args.screenshots) if args.screenshots else site.parent / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)

    count, problems = check_links(site)
    report(
        not problems,
        f"internal links and images of {len(list(site.rglob('*.html')))} HTML files",
        f"{count} references, {len(problems)} broken" + ("; " + "; ".join(problems[:10]) if problems else ""),
    )

    if find_chromium() is None:
        print("SKIP browser checks: no Chromium at /usr/bin/chromium and no usable package manager to install it")
        return 1 if FAILURES else 0
    try:
        import playwright  # noqa: F401
    except ImportError:
        report(False, "playwright is importable", "pip install -e '.[docs]' (make docs installs it)")
        return 1
    server, base = serve(site)
    try:
        browser_checks(site, base, shots)
    except Exception as exc:  # the browser could not start or a page did not load: one line, no traceback
        report(False, "the browser checks ran", f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
    finally:
        server.shutdown()
    if (shots / "index.png").exists():
        print(f"screenshots: {shots / 'index.png'} {shots / 'duol.png'}")
    print(f"docs-check: {'all assertions hold' if not FAILURES else f'{len(FAILURES)} failed'}")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
