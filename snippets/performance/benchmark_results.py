"""Render bench/results/elu_performance.json: a table, the kernels, a plot."""
import json
from pathlib import Path

import matplotlib.pyplot as plt

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results" / "elu_performance.json"

# --8<-- [start:table]
data = json.loads(RESULTS.read_text())
n, bandwidth = data["numel"], data["copy"]["bytes_per_second"]
limit = data["min_bytes_per_element"] * n / bandwidth  # seconds
reference = next(v for v in data["variants"] if v["name"] == "F.elu")

print(f"{n:,} float32 elements, copy bandwidth {bandwidth / 1e9:.1f} GB/s")
print(f"memory-bound limit: {limit * 1e3:.2f} ms\n")
print(f"{'variant':25}{'ms':>7}{'x F.elu':>9}{'x limit':>9}{'saved':>7}")
for v in data["variants"]:
    t = v["median_seconds"]
    ratio = t / reference["median_seconds"]
    saved = v["saved_bytes"] / data["input_bytes"]
    print(f"{v['name']:25}{t * 1e3:7.2f}{ratio:9.2f}{t / limit:9.2f}"
          f"{saved:6.2f}x")
# --8<-- [end:table]

# --8<-- [start:provenance]
for key, value in data["provenance"].items():
    print(f"{key:8} {value}")
# --8<-- [end:provenance]

# --8<-- [start:kernels]
print(f"{'eager kernel (forward only)':27}{'ms':>7}{'B/elem':>7}{'GB/s':>7}")
for k in data["kernels"]:
    t, per_element = k["median_seconds"], k["min_bytes_per_element"]
    rate = per_element * n / t / 1e9
    print(f"{k['name']:27}{t * 1e3:7.2f}{per_element:7}{rate:7.1f}")
# --8<-- [end:kernels]

# --8<-- [start:plot]
names = [v["name"] for v in data["variants"]]
times = [v["median_seconds"] * 1e3 for v in data["variants"]]
fig, ax = plt.subplots(figsize=(7, 3))
ax.barh(names, times, color="tab:blue")
ax.axvline(limit * 1e3, color="tab:red", linestyle="--",
           label="memory-bound limit")
ax.set_xscale("log")
ticks = [1, 2, 5, 10, 20, 50, 100]
ax.set_xticks(ticks, labels=[str(t) for t in ticks])
ax.minorticks_off()
ax.invert_yaxis()
ax.set_xlabel("forward + backward, median ms (log scale)")
threads = data["provenance"]["threads"]
ax.set_title(f"ELU on {n:,} float32 elements, CPU threads: {threads}")
ax.legend(loc="lower right")
plt.show()
# --8<-- [end:plot]
