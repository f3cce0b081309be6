"""jacfwd against jacrev on a tall and a wide function, as measured by
bench/jacobian_modes.py (read from its data file)."""
import json
from pathlib import Path

import matplotlib.pyplot as plt

ROOT = Path(__file__).resolve().parents[2]
data = json.loads((ROOT / "bench/results/jacobian_modes.json").read_text())
rows = data["results"]

print("function     n -> m     jacfwd     jacrev  jacrev/jacfwd")
for row in rows:
    fwd, rev = row["jacfwd_seconds"], row["jacrev_seconds"]
    shape = f"{row['inputs']} -> {row['outputs']}"
    print(f"{row['function']:8} {shape:>10} {fwd * 1e3:7.1f} ms"
          f" {rev * 1e3:7.1f} ms {rev / fwd:14.2f}")

p = data["provenance"]
print(f"\n{p['statistic']}, {p['repeats']} repeats, {rows[0]['hidden']} hidden")
print(f"{p['cpu']}, {p['threads']} threads, torch {p['torch']}, {p['date'][:10]}")
print(f"command: {p['command']}")

fig, ax = plt.subplots(figsize=(6.4, 2.6))
labels = [f"{r['function']}\n{r['inputs']} → {r['outputs']}" for r in rows]
for offset, mode in [(-0.2, "jacfwd"), (0.2, "jacrev")]:
    ms = [r[f"{mode}_seconds"] * 1e3 for r in rows]
    ax.barh([i + offset for i in range(len(rows))], ms, height=0.4, label=mode)
ax.set_yticks(range(len(rows)), labels)
ax.invert_yaxis()
ax.set_xscale("log")
ax.set_xlabel("milliseconds per Jacobian (log scale)")
ax.legend(loc="upper left", bbox_to_anchor=(1, 1))
fig.tight_layout()
plt.show()
