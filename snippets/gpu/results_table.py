"""Print and plot the file bench/gpu_benchmarks.py writes."""
import matplotlib.pyplot as plt

HEADER = ("measurement", "device", "activation", "median ms")
GPU_HEADER = ("unsynced ms", "events ms")


def ms(value):
    return "-" if value is None else f"{value:.3f}"


def show(results):
    """Print the provenance and a table of the medians; plot the medians."""
    p, s = results["provenance"], results["settings"]
    print(f"Recorded {p['date']} with: {p['command']}")
    if p["gpu"]:
        print(f"GPU: {p['gpu']}, CUDA {p['cuda']}, torch {p['torch']}")
    else:
        print(f"GPU: none, this run measured the CPU only; torch {p['torch']}")
    print(f"CPU: {p['cpu']}, {p['cpu_threads']} threads")
    print(f"MLP {'-'.join(map(str, s['sizes']))}, batch {s['batch']}, "
          f"median of {s['repeats']} after {s['warmup']} warm-up runs\n")
    on_gpu = any(r["device"] == "cuda" for r in results["results"])
    gpu_columns = ("unsynchronised_median_ms", "cuda_event_median_ms") if on_gpu else ()
    rows = [HEADER + (GPU_HEADER if on_gpu else ())] + [
        (r["measurement"], r["device"], r["activation"], ms(r["median_ms"]))
        + tuple(ms(r[column]) for column in gpu_columns)
        for r in results["results"]
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        text = [c.ljust(w) if i < 3 else c.rjust(w)
                for i, (c, w) in enumerate(zip(row, widths))]
        print("  ".join(text))

    names = list(dict.fromkeys(r["measurement"] for r in results["results"]))
    fig, axes = plt.subplots(len(names), 1, figsize=(7, 1.2 + 1.6 * len(names)))
    for ax, name in zip(axes, names):
        chosen = [r for r in results["results"] if r["measurement"] == name]
        labels = [f"{r['activation']} ({r['device']})" for r in chosen]
        ax.barh(labels, [r["median_ms"] for r in chosen], color="tab:blue")
        ax.set_xscale("log")
        ax.invert_yaxis()
        ax.set_title(f"{name}: median time (ms, log scale)", fontsize=10)
    fig.tight_layout()
    plt.show()
