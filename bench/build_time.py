"""What the snippet engine costs a build, against builds without it.

Copies the site into a temporary folder (the project's own caches are left
alone) and times whole `python -m mkdocs build` processes, interleaved and
repeated (the order rotates each repeat, so that noise hits every side
alike), with every cache warm on both sides of each comparison:

  no-change  the real site (plugins `snippets` and `katex`, our hooks), nothing edited
  one-edit   the real site after a comment line is appended to one snippet
  cold       the real site with an empty .cache: every snippet runs, as many
             at once as the machine has cores (the `workers` default)
  cold-1     the same with `workers: 1`: one snippet at a time
  plain      baseline (a): Material on the same Markdown pages, no plugin or
             hooks of ours (no math typeset), no notebook pages
  jupyter    baseline (b): (a) plus the notebooks our build wrote, rendered
             by mkdocs-jupyter

Authors edit under `mkdocs serve`, where the snippet worker stays up between
rebuilds, so it also compares serve's rebuild after a snippet edit with its
rebuild after a prose-only edit (each rebuild from its "Building documentation"
line to its "Reloading browsers" line).
Prints medians, each against its baseline and target.

    .venv/bin/python bench/build_time.py [--repeats 3] [--snippet autograd_basics/first_gradient.py]
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

import yaml
from common import provenance, timed

ROOT = Path(__file__).resolve().parent.parent
COPY = ["mkdocs.yml", "docs", "snippets", "hooks", "overrides", "bench"]
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
RAN = re.compile(r"snippet (\S+) ran in ([\d.]+) s")
JUPYTER = {"include": ["notebooks/*.ipynb"], "execute": False, "allow_errors": False, "include_source": True,
           "ignore_h1_titles": True}
PLAIN = ("plain Material building the same Markdown pages (docs/ copied as it is): the same theme, "
         "markdown_extensions (pymdownx.snippets expands the --8<-- lines) and extra_css, plugins: [search], "
         "no hooks, nav without the Notebooks section")
NOTEBOOKS = ("plain (a) plus the notebooks our build wrote (site/notebooks/*.ipynb, copied into docs/notebooks/), "
             f"rendered by mkdocs-jupyter {JUPYTER}, in the nav's Notebooks section; "
             "its first build (not timed) warms mkdocs-jupyter")


def build(site, strict=True):
    """Seconds a `mkdocs build` process takes, and the snippets it ran with their own run times."""
    command = [sys.executable, "-m", "mkdocs", "build", *(["--strict"] if strict else [])]
    seconds, done = timed(lambda: subprocess.run(command, cwd=site, env=ENV, capture_output=True, text=True))
    if done.returncode:
        sys.exit(f"the build in {site} failed:\n{done.stderr}")
    return seconds, {name: float(t) for name, t in RAN.findall(done.stderr)}


def copy_site(folder, names=COPY):
    folder.mkdir(parents=True)
    for name in names:
        (shutil.copytree if (ROOT / name).is_dir() else shutil.copy)(ROOT / name, folder / name)
    (folder / "node_modules").symlink_to(ROOT / "node_modules")
    return folder


def baseline(folder, notebooks=None):
    """A site of docs/ and snippets/ with mkdocs.yml rewritten: no plugin or hooks of ours; with
    `notebooks` (a folder), its .ipynb files in docs/notebooks/, rendered by mkdocs-jupyter."""
    copy_site(folder, ["docs", "snippets"])
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    del config["hooks"]
    del config["theme"]["custom_dir"]  # plain Material: none of our partials (overrides/)
    config["plugins"] = ["search"]
    section = next(e for e in config["nav"] if isinstance(e, dict) and "Notebooks" in e)
    if notebooks:
        (folder / "docs" / "notebooks").mkdir()
        for notebook in notebooks.glob("*.ipynb"):
            shutil.copy(notebook, folder / "docs" / "notebooks")
        section["Notebooks"] = [as_notebook(e) for e in section["Notebooks"]]
        config["plugins"].append({"mkdocs-jupyter": JUPYTER})
    else:
        config["nav"].remove(section)
    (folder / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    return folder


def as_notebook(entry):
    """A nav entry of a notebook page, pointing at the notebook instead."""
    if isinstance(entry, dict):
        return {title: as_notebook(e) for title, e in entry.items()}
    return re.sub(r"^(notebooks/.+)\.md$", r"\1.ipynb", entry)


def first_build(folder):
    """Build once (warming caches) strictly; if strict fails, build without it and say why."""
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=folder, env=ENV,
                          capture_output=True, text=True)
    if not done.returncode:
        return True, ""
    config = yaml.safe_load((folder / "mkdocs.yml").read_text())
    config["strict"] = False
    (folder / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    build(folder, strict=False)
    return False, "\n".join(line for line in done.stderr.splitlines() if line.startswith(("WARNING", "ERROR")))


def serve_rebuilds(site, page, snippet, repeats):
    """Serve's rebuild times after prose-only edits and after snippet edits, with the snippet's own run times.

    One round of edits first is not timed (its time is returned as well)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "--livereload", "-a", f"127.0.0.1:{port}"],
                              cwd=site, env=ENV, stderr=subprocess.PIPE, text=True)
    lines, log = queue.Queue(), []
    threading.Thread(target=lambda: [lines.put((time.monotonic(), line)) for line in server.stderr],
                     daemon=True).start()

    def rebuilt():
        """Serve's time for the rebuilds an edit makes, added up, and the snippets they ran. A rebuild is
        timed from its "Building documentation" line to its "Reloading browsers" line, as they arrive:
        MkDocs' own "Documentation built in" line is not always there, as its build log drops a message
        it has logged before (a rebuild as long as an earlier one, to the hundredth of a second). One
        that a snippet's end causes, when a page showed it as running, counts too: serve goes quiet for
        2 s after the last."""
        ran, total, start, reloaded = {}, 0.0, None, False
        while True:
            try:
                at, line = lines.get(timeout=2 if reloaded and start is None else 300)
            except queue.Empty:
                if reloaded and start is None:
                    return total, ran
                sys.exit(f"mkdocs serve did not rebuild within 300 s; its last lines:\n{''.join(log[-30:])}")
            log.append(line)
            if m := RAN.search(line):
                ran[m[1]] = float(m[2])
            if "Building documentation" in line:
                start = at
            elif "Reloading browsers" in line and start is not None:
                total, start, reloaded = total + at - start, None, True

    def edit(path, text):
        with path.open("a") as f:
            f.write(text)
        return rebuilt()

    times = {"prose": [], "snippet": [], "own": []}
    try:
        while "Serving on" not in lines.get(timeout=300)[1]:  # the first build
            pass
        time.sleep(5)  # the file watcher starts in a thread of its own, the workers start: let them settle
        edit(page, "\n")
        first = edit(snippet, "# serve warm-up\n")[0]
        for n in range(repeats):
            seconds, ran = edit(page, "\n")
            assert not ran, f"a prose edit under serve ran {sorted(ran)}"
            times["prose"].append(seconds)
            seconds, ran = edit(snippet, f"# serve edit {n}\n")
            assert list(ran) == [snippet.relative_to(site / "snippets").as_posix()], \
                f"a snippet edit under serve ran {sorted(ran)}"
            times["snippet"].append(seconds)
            times["own"].extend(ran.values())
    finally:
        server.terminate()
        server.wait()
    return times, first


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--snippet", default="autograd_basics/first_gradient.py", help="the snippet to edit")
    args = parser.parse_args()

    times = {"no-change": [], "plain": [], "jupyter": [], "one-edit": [], "cold": [], "cold-1": []}
    cold_runs, own_edit = [], []
    with tempfile.TemporaryDirectory() as tmp:
        site = copy_site(Path(tmp) / "site")
        edited = site / "snippets" / args.snippet
        build(site)  # a cold build: warms .cache and writes the notebooks
        one_worker = copy_site(Path(tmp) / "one-worker")
        config = yaml.safe_load((one_worker / "mkdocs.yml").read_text())
        next(p for p in config["plugins"] if isinstance(p, dict) and "snippets" in p)["snippets"]["workers"] = 1
        (one_worker / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False))
        plain = baseline(Path(tmp) / "plain")
        jupyter = baseline(Path(tmp) / "jupyter", notebooks=site / "site" / "notebooks")
        strict = {"plain": first_build(plain), "jupyter": first_build(jupyter)}

        def measure(kind, n):
            if kind == "plain":
                seconds, _ = build(plain, strict["plain"][0])
            elif kind == "jupyter":
                seconds, _ = build(jupyter, strict["jupyter"][0])
            elif kind == "no-change":
                seconds, runs = build(site)
                assert not runs, f"a no-change rebuild ran {sorted(runs)}"
            elif kind == "one-edit":
                with edited.open("a") as f:
                    f.write(f"# edit {n}\n")
                seconds, runs = build(site)
                assert list(runs) == [args.snippet], f"an edit of {args.snippet} ran {sorted(runs)}"
                own_edit.append(runs[args.snippet])
            elif kind == "cold-1":
                shutil.rmtree(one_worker / ".cache", ignore_errors=True)
                seconds, _ = build(one_worker)
            else:
                shutil.rmtree(site / ".cache")
                seconds, runs = build(site)
                cold_runs.append(runs)
            times[kind].append(seconds)

        kinds = list(times)
        for n in range(args.repeats):
            for kind in kinds[n % len(kinds):] + kinds[:n % len(kinds)]:
                measure(kind, n)
        chapter = site / "docs" / f"{Path(args.snippet).parts[0]}.md"
        page = chapter if chapter.exists() else next((site / "docs").glob("*.md"))
        serve, serve_first = serve_rebuilds(site, page, edited, args.repeats)
        cached = sorted(p.name for p in (site / ".cache").iterdir())

    med = {k: statistics.median(v) for k, v in times.items()}
    own, edit_own = statistics.median(sum(r.values()) for r in cold_runs), statistics.median(own_edit)
    serve_med = {k: statistics.median(v) for k, v in serve.items()}
    snippets = len(cold_runs[-1])
    rows = [  # measurement, seconds, baseline, its seconds, target (ratio, or seconds added)
        ("(a) no-change rebuild", med["no-change"], "plain (a)", med["plain"], ("x", 1.5)),
        ("(b) no-change rebuild", med["no-change"], "jupyter (b)", med["jupyter"], ("x", 1.1)),
        ("(c) one-edit build", med["one-edit"], "plain (a) + edited snippet's run",
         med["plain"] + edit_own, ("+", 1.5)),
        ("(c) serve: snippet edit", serve_med["snippet"], "serve: prose edit + snippet's run",
         serve_med["prose"] + serve_med["own"], ("+", 0.5)),
        ("cold build", med["cold"], f"plain (a) + all {snippets} snippets' runs", med["plain"] + own,
         ("+", round(0.2 * snippets, 2))),
        ("cold build", med["cold"], "cold build, workers: 1", med["cold-1"], ("x", 0.65)),
    ]
    print("; ".join(f"{k}: {v}" for k, v in provenance("date command python torch platform cpu cores",
                                                        __file__).items()))
    print(f"medians of {args.repeats} repeats; {snippets} snippets on the site; edited snippet: {args.snippet}")
    print()
    print(f"{'measurement':24} {'median s':>8}  {'baseline':36} {'base s':>6}  {'ratio':>6}  {'diff s':>6}  "
          f"{'target':16} result")
    for name, seconds, base, base_seconds, (kind, limit) in rows:
        target = f"<= {limit} x" if kind == "x" else f"<= base + {limit} s"
        met = seconds <= (base_seconds * limit if kind == "x" else base_seconds + limit)
        print(f"{name:24} {seconds:8.2f}  {base:36} {base_seconds:6.2f}  {seconds / base_seconds:5.2f}x  "
              f"{seconds - base_seconds:+6.2f}  {target:16} {'met' if met else 'NOT MET'}")
    print()
    print("timings (medians, seconds):")
    for kind, seconds in med.items():
        print(f"  {kind:10} {seconds:6.2f}   each: {', '.join(f'{t:.2f}' for t in times[kind])}")
    overhead = (med["cold"] - med["plain"] - own) / snippets
    print(f"  own run time of all snippets in a cold build {own:.2f}; of the edited snippet {edit_own:.2f}; "
          f"cold overhead per snippet (cold - plain - own runs) / {snippets}: {overhead:.3f}")
    print(f"  serve rebuilds: prose edit {serve_med['prose']:.2f}, snippet edit "
          f"{serve_med['snippet']:.2f} (snippet's own run {serve_med['own']:.2f}); "
          f"the first snippet edit, not counted: {serve_first:.2f}")
    print()
    print("what each is:")
    print("  no-change: `mkdocs build --strict` of the real site (plugins `snippets` and `katex`, our hooks), "
          "nothing edited, "
          f"after a build of its own (.cache then holds: {', '.join(cached)}); asserted to run no snippet")
    print(f"  one-edit: the same after appending a comment line to snippets/{args.snippet}, in a fresh process "
          "(it starts the worker); asserted to run only that snippet")
    print(f"  cold: the same with .cache removed first: every snippet runs, {os.cpu_count()} at once (the "
          "`workers` default: the number of cores)")
    print("  cold-1: the same cold build with `workers: 1` in mkdocs.yml: one snippet at a time")
    print("  cold and cold-1 alike find torch.compile's kernel cache (outside .cache, where plain Python keeps it) "
          "filled by the builds before them, as a reader's second run of a snippet does")
    print(f"  plain (a): {PLAIN}")
    print(f"  jupyter (b): {NOTEBOOKS}")
    print("  serve: `mkdocs serve` on the real site, a page edited (a newline appended) then the snippet edited, "
          "alternately; each rebuild from its 'Building documentation' line to its 'Reloading browsers' line")
    for name, (ok, why) in strict.items():
        if not ok:
            print(f"  {name} is built WITHOUT --strict: strict fails for it with\n    " + why.replace("\n", "\n    "))
        else:
            print(f"  {name} is built with --strict, as the real site is")


if __name__ == "__main__":
    main()
