"""How much the build-time execution of snippets costs, measured on the real site.

Builds a copy of the site (in a temporary folder, so the project's own cache
is left alone) in four ways, interleaved and repeated:

  plain      EXECUTE_SNIPPETS=0: the same pages with execution switched off
  cold       an empty snippet cache: every snippet runs
  no-change  a warm cache and nothing edited
  one-edit   one snippet edited (a comment appended): only it re-runs

and prints medians, ratios and the targets. Each of those is a whole
`python -m mkdocs build` process, so a build that must run a snippet also
pays for starting the worker that imports torch. Authors edit under
`mkdocs serve`, where that worker stays warm between rebuilds, so the script
also times serve's rebuilds after a prose-only edit and after a snippet edit
(MkDocs' own "Documentation built in" figure).

    .venv/bin/python bench/build_time.py [--repeats 5] [--snippet autograd_basics/first_gradient.py]
"""

import argparse
import os
import queue
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COPY = ["mkdocs.yml", "docs", "snippets", "hooks", "bench"]


def build(site, execute=True):
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "EXECUTE_SNIPPETS": "1" if execute else "0"}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=site, env=env,
                          capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode:
        sys.exit(f"build failed:\n{done.stderr}")
    runs = {name: float(t) for name, t in re.findall(r"snippet (\S+) ran in ([\d.]+) s", done.stderr)}
    return seconds, runs


def copy_site(folder):
    folder.mkdir(parents=True)
    for name in COPY:
        (shutil.copytree if (ROOT / name).is_dir() else shutil.copy)(ROOT / name, folder / name)
    (folder / "node_modules").symlink_to(ROOT / "node_modules")
    return folder


def serve_rebuilds(site, page, snippet, repeats):
    """Median serve rebuild times after editing a page, and after editing a snippet."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    server = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "--livereload", "-a", f"127.0.0.1:{port}"],
                              cwd=site, env=env, stderr=subprocess.PIPE, text=True)
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in server.stderr], daemon=True).start()

    def rebuilt():
        ran = {}
        while True:
            line = lines.get(timeout=300)
            if m := re.search(r"snippet (\S+) ran in ([\d.]+) s", line):
                ran[m[1]] = float(m[2])
            if m := re.search(r"Documentation built in ([\d.]+) seconds", line):
                return float(m[1]), ran

    try:
        rebuilt()  # the first build
        while "Serving on" not in lines.get(timeout=60):
            pass
        time.sleep(2)  # the file watcher starts in a thread of its own: let it settle
        prose, code, own = [], [], []
        for n in range(repeats):
            with page.open("a") as f:
                f.write("\n")
            prose.append(rebuilt()[0])
            with snippet.open("a") as f:
                f.write(f"# serve edit {n}\n")
            seconds, ran = rebuilt()
            assert len(ran) == 1, f"a snippet edit under serve ran {sorted(ran)}"
            code.append(seconds)
            own.extend(ran.values())
    finally:
        server.terminate()
        server.wait()
    return statistics.median(prose), statistics.median(code), statistics.median(own)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--snippet", default="autograd_basics/first_gradient.py", help="the snippet to edit")
    args = parser.parse_args()

    times = {"plain": [], "cold": [], "no-change": [], "one-edit": []}
    own_cold, own_edit = [], []
    with tempfile.TemporaryDirectory() as tmp:
        # Plain builds get a copy of their own, so that their notebook cache (notebooks
        # without outputs) stays warm, as it would for an author who never executes.
        site, plain = copy_site(Path(tmp) / "site"), copy_site(Path(tmp) / "plain")
        edited = site / "snippets" / args.snippet
        build(plain, execute=False)  # warm caches before measuring
        for n in range(args.repeats):
            times["plain"].append(build(plain, execute=False)[0])
            shutil.rmtree(site / ".cache", ignore_errors=True)
            seconds, cold_runs = build(site)
            times["cold"].append(seconds)
            own_cold.append(sum(cold_runs.values()))
            seconds, runs = build(site)
            assert not runs, f"a no-change rebuild ran {sorted(runs)}"
            times["no-change"].append(seconds)
            with edited.open("a") as f:
                f.write(f"# edit {n}\n")
            seconds, runs = build(site)
            assert list(runs) == [args.snippet], f"an edit of {args.snippet} ran {sorted(runs)}"
            times["one-edit"].append(seconds)
            own_edit.append(runs[args.snippet])
        snippets = len(cold_runs)
        page = next((site / "docs").glob("*.md"))
        serve_prose, serve_code, serve_own = serve_rebuilds(site, page, edited, args.repeats)

    med = {k: statistics.median(v) for k, v in times.items()}
    own = statistics.median(own_cold)
    print(f"{args.repeats} repeats, medians; {snippets} snippets on the site; torch imported once per cold build")
    for name, seconds in med.items():
        print(f"  {name:10} {seconds:6.2f} s   {seconds / med['plain']:5.2f} x plain")
    print(f"  snippets' own run time in a cold build: {own:.2f} s; edited snippet's own run time: "
          f"{statistics.median(own_edit):.2f} s")
    overhead = (med["cold"] - med["plain"] - own) / snippets
    edit_limit = med["plain"] + statistics.median(own_edit) + 1
    print("targets:")
    print(f"  no-change <= 1.3 x plain:                 {med['no-change'] / med['plain']:.2f} x")
    print(f"  one-edit <= plain + own run + 1 s = {edit_limit:.2f} s: {med['one-edit']:.2f} s")
    print(f"  cold overhead per snippet <= 0.2 s:         {overhead:.2f} s "
          f"(cold - plain - own run time, divided by {snippets} snippets)")
    print("under mkdocs serve (worker warm), MkDocs' own build times:")
    print(f"  rebuild after a prose edit:   {serve_prose:.2f} s")
    print(f"  rebuild after a snippet edit: {serve_code:.2f} s (snippet's own run time {serve_own:.2f} s)")
    print(f"  one-edit <= prose rebuild + own run + 1 s = {serve_prose + serve_own + 1:.2f} s: {serve_code:.2f} s")


if __name__ == "__main__":
    main()
