"""How long the search box takes to answer a paste, in headless Chromium, on the built site.

Every paste of tests/search_pastes.yaml (real pastes from public threads), then the long and
hostile inputs of tests/browser/test_search.py (lunr's fuzziness `~100`, a 5,000-character word, a
2,000-word paste, a 20,000-character training log), each pasted `--repeats` times into the
search box of the home page, on two copies of one build of the site (`mkdocs build`):

  site      as built: Material 9.8.2's search worker with hooks/search_worker.js put before it
  material  the baseline: the same build with Material 9.8.2's own worker file put back

An answer's time runs from the query's message to the worker to the worker's reply, as the page
sees them; a query with no reply after `--limit` seconds is counted as not answered (Material's
worker then stays busy: the next query gets a new tab). Writes the median and the
largest answer time of each group, per copy, to bench/results/search_answer_time.json with the
provenance.
"""

import argparse
import functools
import http.server
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
from importlib.metadata import version
from pathlib import Path

import yaml
from common import ROOT, provenance

sys.path.insert(0, str(ROOT / "tests"))
from test_search import HOSTILE  # noqa: E402

from snippet_engine.system_tools import CHROMIUM_FLAGS, chromium  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "search_answer_time.json"
PASTES = [entry["paste"] for entry in yaml.safe_load((ROOT / "tests" / "search_pastes.yaml").read_text(encoding="utf-8"))]

# The time of each message the page sends to the search worker, and of each reply.
TIMED_WORKER = """
(() => {
  const Native = window.Worker;
  window.traffic = {sent: [], received: []};
  window.Worker = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", () => window.traffic.received.push(performance.now()));
    }
    postMessage(...args) {
      window.traffic.sent.push(performance.now());
      return super.postMessage(...args);
    }
  };
})();
"""


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(folder):
    handler = functools.partial(Quiet, directory=folder)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def open_search(browser, url):
    """A new tab on the home page with the search box focused and the index loaded."""
    context = browser.new_context()
    context.add_init_script(TIMED_WORKER)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url.rstrip("/"))
    page = context.new_page()
    page.goto(url, wait_until="load")
    page.locator("input.md-search__input").click()
    page.wait_for_function("window.traffic.received.length >= 1")
    return page


def answer_times(browser, url, queries, repeats, limit):
    """{query index: [seconds, or None where no answer came within `limit`]}. After a query left
    unanswered the worker is still busy: the next query gets a new tab."""
    from playwright.sync_api import TimeoutError

    page, times = open_search(browser, url), {}
    for round_ in range(repeats):
        for i, query in enumerate(queries):
            page.evaluate("text => navigator.clipboard.writeText(text)", f"{query} {round_}")
            sent = page.evaluate("window.traffic.sent.length")
            page.locator("input.md-search__input").press("Control+A")
            page.locator("input.md-search__input").press("Control+V")
            try:
                page.wait_for_function(f"window.traffic.received.length > {sent}", timeout=limit * 1000)
            except TimeoutError:
                times.setdefault(i, []).append(None)
                page.context.close()
                page = open_search(browser, url)
                continue
            start, end = page.evaluate(f"[window.traffic.sent[{sent}], window.traffic.received[{sent}]]")
            times.setdefault(i, []).append((end - start) / 1000)
    page.context.close()
    return times


def summary(times, indices):
    """A query counts as answered when every repeat was; its time is the median of the repeats."""
    answered = [statistics.median(times[i]) for i in indices if None not in times[i]]
    return {"queries": len(indices), "answered": len(answered),
            "median_s": round(statistics.median(answered), 4) if answered else None,
            "largest_s": round(max(answered), 4) if answered else None}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--limit", type=float, default=30.0, help="seconds to wait for an answer")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    queries = PASTES + HOSTILE
    groups = {"real pastes": range(len(PASTES)), "hostile and long": range(len(PASTES), len(queries))}
    with tempfile.TemporaryDirectory() as scratch:
        site = Path(scratch, "site")
        subprocess.run([sys.executable, "-m", "mkdocs", "build", "--site-dir", str(site)], cwd=ROOT, check=True,
                       capture_output=True)
        material = Path(scratch, "material")
        shutil.copytree(site, material)
        import material as theme

        for worker in (material / "assets/javascripts/workers").glob("search.*.min.js"):
            shutil.copy(Path(theme.__file__).parent / "templates/assets/javascripts/workers" / worker.name, worker)
        results = {}
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium(), args=CHROMIUM_FLAGS)
            for name, folder in (("site", site), ("material", material)):
                server, url = serve(folder)
                times = answer_times(browser, url, queries, args.repeats, args.limit)
                server.shutdown()
                results[name] = {group: summary(times, indices) for group, indices in groups.items()}
                results[name]["longest paste"] = {"characters": max(map(len, queries)),
                                                  **summary(times, [max(range(len(queries)), key=lambda i: len(queries[i]))])}
            browser.close()
    report = {"provenance": provenance("date command python platform cpu cores mkdocs_material", __file__,
                                       mkdocs_material=version("mkdocs-material")),
              "repeats": args.repeats, "limit_s": args.limit, "results": results}
    RESULTS.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
