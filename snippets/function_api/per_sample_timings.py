"""Per-sample gradients, vmap(grad(...)) against a loop of backward() calls,
as measured by bench/per_sample_gradients.py (read from its data file)."""
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
data = json.loads((ROOT / "bench/results/per_sample_gradients.json").read_text())
settings, p = data["settings"], data["provenance"]

inputs, hidden, outputs = settings["sizes"]
print(f"{settings['batch']} samples, "
      f"Linear({inputs}, {hidden}) -> ELU -> Linear({hidden}, {outputs})")
print(f"same gradients both ways: {data['same_gradients']}")
print(f"vmap(grad(...)):       {data['vmap_seconds'] * 1e3:7.2f} ms")
print(f"loop with backward():  {data['loop_seconds'] * 1e3:7.2f} ms")
print(f"loop / vmap:           {data['loop_over_vmap']:7.1f}")
print(f"\n{p['statistic']}, {p['repeats']} repeats of each, side by side")
print(f"{p['cpu']}, {p['threads']} thread{'s' * (p['threads'] != 1)}, "
      f"torch {p['torch']}, {p['date'][:10]}")
print(f"command: {p['command']}")
