"""What the snippet engine adds to a snippet's printing.

One snippet prints `--lines` numbers, a print() each, and times its own loop (so that neither
Python's start nor the engine's is counted). It runs in three ways, in turn, `--repeats` times:

  engine    as the build runs it: in the snippet engine's worker, every line captured with
            the line of the snippet that printed it
  pipe      plain `python snippet.py`, its stdout a pipe that this process reads (Python
            buffers it in blocks)
  terminal  plain `python snippet.py` in a pseudo-terminal, as a reader runs it (Python
            writes a line at a time)

and the medians are written with the ratios engine/pipe and engine/terminal.
"""

import argparse
import json
import os
import pty
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from common import ROOT, provenance

from snippet_engine.runner import Runner
from snippet_engine.shapes import Settings

SNIPPET = """import sys
import time

start = time.perf_counter()
for i in range({lines}):
    print(i)
print(f"seconds {{time.perf_counter() - start}}", file=sys.stderr)
"""


def seconds(text):
    """What the snippet says its loop took."""
    return float(text.rsplit("seconds ", 1)[1].split()[0])


def in_terminal(path):
    """The loop's seconds, `python path` run with a pseudo-terminal as its stdout."""
    main, other = pty.openpty()
    read = threading.Thread(target=lambda: drain(main), daemon=True)
    read.start()
    done = subprocess.run([sys.executable, path], stdout=other, stderr=subprocess.PIPE, text=True, check=True)
    os.close(other)
    read.join()
    os.close(main)
    return seconds(done.stderr)


def drain(fd):
    try:
        while os.read(fd, 1 << 16):
            pass
    except OSError:  # the other side closed
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--output", type=Path, default=ROOT / "bench" / "results" / "print_speed.json")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="print-speed-"))
    path = folder / "prints.py"
    path.write_text(SNIPPET.format(lines=args.lines))
    runner = Runner(Settings(folder, None, workers=1))
    times = {"engine": [], "pipe": [], "terminal": []}
    try:
        for _ in range(args.repeats):
            result = runner.run(path)
            assert result.error is None, result.error
            times["engine"].append(seconds("".join(o["output"].get("text", "") for o in result.outputs)))
            done = subprocess.run([sys.executable, path], capture_output=True, text=True, check=True)
            times["pipe"].append(seconds(done.stderr))
            times["terminal"].append(in_terminal(path))
    finally:
        runner.close()
    medians = {way: statistics.median(values) for way, values in times.items()}
    data = {"provenance": provenance("date command python platform cpu cores", __file__),
            "lines": args.lines, "repeats": args.repeats, "seconds": times, "median_seconds": medians,
            "engine_over_pipe": medians["engine"] / medians["pipe"],
            "engine_over_terminal": medians["engine"] / medians["terminal"]}
    args.output.write_text(json.dumps(data, indent=2) + "\n")
    for way, median in medians.items():
        print(f"{way:9} {median:.3f} s (median of {args.repeats})")
    print(f"engine/pipe {data['engine_over_pipe']:.2f}x, engine/terminal {data['engine_over_terminal']:.2f}x")


if __name__ == "__main__":
    main()
