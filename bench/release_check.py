"""Every snippet run on another release of torch, compared with the project's: `make release-check`.

    python bench/release_check.py run OUT.json          # in the other release's environment
    python bench/release_check.py compare OUT.json DATA  # in the project's (.venv)

`run` runs every snippet the pages include, as the build runs it (the snippet engine from src/,
the blocks' options, mkdocs.yml's timeout and output limit), twice, with no cache, and writes
what each top-level line of each snippet printed or warned in each run. `compare` does the same
on the project's torch and writes DATA: for each snippet,
the digest of its code, and each line whose output differs between the releases, with both
outputs. A line whose output differs between two runs of the same release (a time, an address)
is left out and counted apart: it says nothing of the release.
"""

import argparse
import datetime
import hashlib
import json
import platform
from importlib import metadata
from pathlib import Path

import yaml

from snippet_engine.chapter import included
from snippet_engine.kinds.warning import WARNING
from snippet_engine.runner import Runner
from snippet_engine.shapes import Settings

ROOT = Path(__file__).resolve().parent.parent
SNIPPETS = ROOT / "snippets"
RUNS = 2  # runs of each release: what differs between them varies from run to run


def settings() -> Settings:
    """The build's settings from mkdocs.yml (read as plain YAML: no MkDocs needed), with no cache."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    plugin = next(p["snippets"] for p in config["plugins"] if isinstance(p, dict) and "snippets" in p)
    known = {name: plugin[name] for name in ("timeout", "output_limit", "workers") if name in plugin}
    return Settings(SNIPPETS, None, preload=tuple(plugin.get("preload", Settings.preload)), **known)


def by_line(outputs: list[dict]) -> dict[str, str]:
    """What each top-level line showed, as text: printed text, a warning's category and message,
    a picture as its kind (its pixels are not compared)."""
    lines: dict[str, str] = {}
    for item in outputs:
        out, text = item["output"], ""
        data = out.get("data", {})
        if out["output_type"] == "stream":
            text = out["text"]
        elif WARNING in data:
            text = f"{data[WARNING]['category']}: {data[WARNING]['message']}\n"
        elif "text/plain" in data and len(data) == 1:
            text = data["text/plain"] + "\n"
        else:
            text = f"[{', '.join(sorted(data))}]\n"
        key = str(item["line"])
        lines[key] = lines.get(key, "") + text
    return lines


def run_all(runs: int) -> dict[str, list[dict[str, str]]]:
    """{snippet: [by_line of each run]}; a snippet that fails shows its error as its line's output."""
    runner = Runner(settings())
    try:
        found: dict[str, list[dict[str, str]]] = {}
        options = included(ROOT / "docs", SNIPPETS)
        for _ in range(runs):
            started = runner.start_all(sorted(options.items()))
            for (path, _), (future, _) in zip(sorted(options.items()), started):
                result = runner.wait(future)
                lines = by_line(result.outputs)
                if result.error:
                    key = str(result.error["line"])
                    lines[key] = lines.get(key, "") + f"{result.error['type']}: {result.error['message']}\n"
                found.setdefault(path.relative_to(SNIPPETS).as_posix(), []).append(lines)
        return found
    finally:
        runner.close()


def environment() -> dict[str, str]:
    return {"torch": metadata.version("torch"), "python": platform.python_version(), "machine": platform.machine()}


def compare(other_file: Path, data_file: Path) -> None:
    other = json.loads(other_file.read_text())
    ours = run_all(RUNS)
    snippets, varying = {}, 0
    for name, runs in sorted(ours.items()):
        if name not in other["snippets"]:  # not run on the other release: left unchecked
            continue
        theirs = other["snippets"][name]
        keys = sorted({key for run in runs + theirs for key in run}, key=lambda k: (k == "None", int(k) if k.isdigit() else 0))
        differs = []
        for key in keys:
            mine, others = {run.get(key, "") for run in runs}, {run.get(key, "") for run in theirs}
            if len(mine) > 1 or len(others) > 1:
                varying += 1
            elif mine != others:
                differs.append({"line": None if key == "None" else int(key), "ours": mine.pop(), "theirs": others.pop()})
        code = (SNIPPETS / name).read_bytes()
        snippets[name] = {"sha256": hashlib.sha256(code).hexdigest(), "differs": differs}
    data = {
        "checked": {**{f"other_{k}": v for k, v in other["environment"].items()},
                    **{f"ours_{k}": v for k, v in environment().items()},
                    "date": datetime.date.today().isoformat(), "runs_each": RUNS, "command": "make release-check"},
        "lines_varying_between_runs": varying,
        "snippets": snippets,
    }
    data_file.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    changed = [(name, d["line"]) for name, entry in snippets.items() for d in entry["differs"]]
    print(f"{len(snippets)} snippets: {len(changed)} lines print something else on torch {other['environment']['torch']}"
          f" ({varying} vary between runs of one release)")
    for name, line in changed:
        print(f"  {name}:{line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    sub.add_parser("run").add_argument("out", type=Path)
    step = sub.add_parser("compare")
    step.add_argument("other", type=Path)
    step.add_argument("data", type=Path)
    args = parser.parse_args()
    if args.step == "run":
        args.out.write_text(json.dumps({"environment": environment(), "snippets": run_all(RUNS)}))
    else:
        compare(args.other, args.data)


if __name__ == "__main__":
    main()
