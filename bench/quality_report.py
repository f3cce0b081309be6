"""Lighthouse scores and transfer size of every page of the built site.

Builds the site, serves it on 127.0.0.1 (gzip-compressed, as a static host
would serve it), and runs Lighthouse 12.2.3 (from
the npm registry, installed on first use into .cache/lighthouse) against
Chromium with its default mobile settings, then prints one row per page:
the median of --runs audits (performance moves by several points from run to
run on a busy machine). Targets: accessibility >= 95 and performance >= 90.

    .venv/bin/python bench/quality_report.py [--runs 3] [--pages autograd_basics gpu ...]
"""

import argparse
import functools
import gzip
import http.server
import io
import json
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from common import provenance

from snippet_engine.system_tools import TOOLS, chromium

ROOT = Path(__file__).resolve().parent.parent

LIGHTHOUSE = ROOT / ".cache" / "lighthouse"
CLI = LIGHTHOUSE / "node_modules" / "lighthouse" / "cli" / "index.js"
BIN = Path(sys.executable).parent


def install():
    if not CLI.exists():
        subprocess.run([BIN / "npm", "install", "--prefix", LIGHTHOUSE, "--no-audit", "--no-fund",
                        "--loglevel=error", "lighthouse@12.2.3"], check=True)


class Compressing(http.server.SimpleHTTPRequestHandler):
    """Serves text files gzip-compressed when asked, as any static host does."""

    TEXT = (".html", ".css", ".js", ".json", ".svg", ".ipynb", ".py")

    def send_head(self):
        path = Path(self.translate_path(self.path))
        path = path / "index.html" if path.is_dir() and self.path.endswith("/") else path
        if not (path.is_file() and path.suffix in self.TEXT and "gzip" in self.headers.get("Accept-Encoding", "")):
            return super().send_head()
        data = gzip.compress(path.read_bytes())
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        return io.BytesIO(data)

    def log_message(self, *args):
        pass


def serve(site):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Compressing, directory=site))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"


def audit(url):
    flags = "--headless=new --no-sandbox --disable-gpu --disable-background-networking --no-first-run"
    done = subprocess.run([BIN / "node", CLI, url, "--only-categories=performance,accessibility", "--output=json",
                           "--output-path=stdout", "--quiet", f"--chrome-flags={flags}"],
                          capture_output=True, text=True, env={**os.environ, "CHROME_PATH": chromium()})
    if done.returncode:
        sys.exit(f"lighthouse failed on {url}:\n{done.stderr[-2000:]}")
    report = json.loads(done.stdout)
    score = {k: round(v["score"] * 100) for k, v in report["categories"].items()}
    kib = report["audits"]["total-byte-weight"]["numericValue"] / 1024
    failing = sorted({ref["id"] for cat in report["categories"].values() for ref in cat["auditRefs"]
                      if ref["weight"] and (report["audits"][ref["id"]]["score"] or 0) < 0.9
                      and report["audits"][ref["id"]]["scoreDisplayMode"] in ("binary", "numeric")})
    return score["performance"], score["accessibility"], kib, failing


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", nargs="*", help="page folders to audit (default: all)")
    parser.add_argument("--runs", type=int, default=3, help="audits per page; the median is reported")
    args = parser.parse_args()
    if chromium() is None:
        sys.exit(TOOLS["chromium"][1])
    install()
    print("; ".join(f"{k}: {v}" for k, v in provenance("date command python platform cpu cores", __file__).items()))
    with tempfile.TemporaryDirectory() as site:
        env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
        subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", site],
                       cwd=ROOT, env=env, check=True)
        base = serve(site)
        folders = args.pages or sorted(p.parent.relative_to(site).as_posix()
                                       for p in Path(site).rglob("index.html") if "404" not in str(p))
        print(f"{'page':45} {'performance':>11} {'accessibility':>13} {'transfer KiB':>12}")
        misses = 0
        for folder in folders:
            url = f"{base}/" if folder == "." else f"{base}/{folder}/"
            runs = sorted((audit(url) for _ in range(args.runs)), key=lambda run: run[0])
            performance, accessibility, kib, failing = runs[len(runs) // 2]
            flag = "" if performance >= 90 and accessibility >= 95 else "  below target: " + ", ".join(failing)
            misses += bool(flag)
            print(f"{folder if folder != '.' else '(home)':45} {performance:>11} {accessibility:>13} {kib:>12.0f}{flag}")
        print(f"{len(folders) - misses} of {len(folders)} pages meet both targets "
              "(performance >= 90, accessibility >= 95; Lighthouse 12.2.3, mobile defaults)")


if __name__ == "__main__":
    main()
