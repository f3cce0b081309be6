"""Render bench/results/saving_memory.json:
the trade-off table, the provenance, a plot."""
import json
from pathlib import Path

import matplotlib.pyplot as plt

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results" / "saving_memory.json"

# --8<-- [start:table]
data = json.loads(RESULTS.read_text())
model, variants = data["model"], data["variants"]
plain = next(v for v in variants if v["name"] == data["baseline"])
print(f"{model['depth']} blocks of width {model['width']}, batch {data['batch']},"
      f" {data['dtype']}: one activation is {data['activation_bytes']:,} bytes")
print(f"time: median of {data['rounds']} rounds; x plain: median of the"
      f" ratios to plain in the same round\n")
width = max(len(v["name"]) for v in variants) + 1
print(f"{'variant':{width}}{'stored bytes':>13}{'x plain':>8}{'ms':>7}"
      f"{'x plain':>8}{'gradient error':>15}")
for v in variants:
    print(f"{v['name']:{width}}{v['saved_bytes']:13,}"
          f"{v['saved_bytes'] / plain['saved_bytes']:8.2f}"
          f"{v['median_seconds'] * 1e3:7.0f}{v['median_ratio_to_plain']:8.2f}"
          f"{v['max_relative_gradient_error']:15.1e}")
# --8<-- [end:table]

# --8<-- [start:provenance]
for key, value in data["provenance"].items():
    print(f"{key:8} {value}")
# --8<-- [end:provenance]

# --8<-- [start:plot]
names = [v["name"] for v in variants]
memory = [v["saved_bytes"] / plain["saved_bytes"] for v in variants]
time = [v["median_ratio_to_plain"] for v in variants]
fig, (left, right) = plt.subplots(1, 2, figsize=(8, 3.5), sharey=True)
left.barh(names, memory, color="tab:blue")
left.set_xlabel("bytes stored for backward, x plain")
right.barh(names, time, color="tab:orange")
right.set_xlabel("time per training step, x plain")
for ax in (left, right):
    ax.axvline(1, color="gray", linewidth=1)
    ax.set_xlim(0, max(1.1, *memory, *time) * 1.05)
left.invert_yaxis()
fig.suptitle(f"Saving memory in an ELU MLP of {model['depth']} blocks"
             f" (CPU, threads: {data['provenance']['threads']})")
fig.tight_layout()
plt.show()
# --8<-- [end:plot]
