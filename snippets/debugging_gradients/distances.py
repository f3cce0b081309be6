"""Pairwise Euclidean distances: the chapter's running example."""
import re
from pathlib import Path

import torch
from torch import Tensor


# --8<-- [start:naive]
def pairwise_distances(points: Tensor) -> Tensor:
    """dist[i, j] = |points[i] - points[j]|, for points of shape (n, d)."""
    diff = points[:, None, :] - points[None, :, :]
    squared = (diff**2).sum(dim=-1)
    return squared.sqrt()
# --8<-- [end:naive]


# --8<-- [start:safe]
def safe_pairwise_distances(points: Tensor) -> Tensor:
    """The same distances, with a finite gradient where two points coincide."""
    diff = points[:, None, :] - points[None, :, :]
    squared = (diff**2).sum(dim=-1)
    positive = squared > 0
    # sqrt only ever sees positive numbers: 1 stands in for each 0 ...
    safe_squared = torch.where(positive, squared, 1.0)
    # ... and its result is thrown away there, gradient included.
    return torch.where(positive, safe_squared.sqrt(), 0.0)
# --8<-- [end:safe]


def forward_traceback(warnings: list) -> str:
    """The anomaly-mode warning: its frames from the first one in this folder
    on (a runner may add its own before), file names without folders."""
    (warning,) = [w for w in warnings
                  if "Traceback of forward call" in str(w.message)]
    text = str(warning.message).split(" (Triggered internally")[0].rstrip()
    header, *frames = re.split(r"\n(?=  File )", text)
    here = Path(__file__).resolve().parent
    folders = [Path(re.search(r'File "(.*?)"', f)[1]).resolve().parent
               for f in frames]
    first = folders.index(here)
    shown = "\n".join([header, *frames[first:]])
    return re.sub(r'File ".*/', 'File "', shown)
