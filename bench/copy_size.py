"""How the copies' work grows with a snippet's size: the seconds a long snippet's copy, its
notebook cell and its download take to make, at several sizes.

Each snippet is a lesson of a few lines repeated (a seed, draws, a definition, names reused
and names of its own, a value made from the last lesson's, prints, an effect on a list), in a
temporary folder; each size is measured in a fresh process, with nothing cached.

    .venv/bin/python bench/copy_size.py [--lines 4000 16000 64000]
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LESSON = """\
# lesson {i}
random.seed({i})
w{i} = [random.random() for _ in range(3)]
def scaled{i}(values, factor=2.0):
    return [v * factor for v in values]
total = sum(scaled{i}(w{i}))
rate{j} = rate{i} / 2
history.append(total * rate{j})
print(f"{i}: {{total:.3f}}", len(history))
"""


def snippet(lessons):
    """A snippet of the imports, then the lesson repeated `lessons` times (tests/test_standalone.py
    counts the work of its copies)."""
    head = "import random\n\nhistory = []\nrate0 = 1.0\n"
    return head + "".join(LESSON.format(i=i, j=i + 1) for i in range(lessons))


def measure(path):
    """Seconds to make the whole file's copy, its last lesson's copy, its notebook cell, its download."""
    from snippet_engine import standalone

    source = standalone.Source(path, path.parent)
    last = len(source.lines)
    first = last - LESSON.count("\n") + 1
    timings = {}
    for name, make in [("copy of all", lambda: source.program()),
                       ("copy of the last lesson", lambda: source.program(first, last)),
                       ("notebook cell", lambda: source.cell(1, last, standalone.Inlined())),
                       ("download", lambda: source.whole())]:
        start = time.perf_counter()
        make()
        timings[name] = time.perf_counter() - start
    return timings


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, nargs="+", default=[4000, 16000, 64000])
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)  # measure one file, in this process
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one)))
        return
    with tempfile.TemporaryDirectory() as folder:
        for lines in args.lines:
            path = Path(folder) / f"long_{lines}.py"
            path.write_text(snippet(max(1, (lines - 4) // LESSON.count("\n"))))
            done = subprocess.run([sys.executable, __file__, "--one", str(path)], capture_output=True, text=True,
                                  check=True)
            timings = json.loads(done.stdout)
            print(f"{lines:>6} lines: " + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in timings.items()),
                  flush=True)


if __name__ == "__main__":
    main()
