"""Graphviz's `dot` renders the torchviz graphs: fail early, and say how to get it.

As a MkDocs hook it stops the build before any page is rendered. Run as a
script (`python hooks/graphviz_check.py`) it is the setup step: as root on
Debian or Ubuntu it installs the `graphviz` package; elsewhere it prints how
to install it and exits non-zero.
"""

import os
import shutil
import subprocess
import sys

MISSING = (
    "Graphviz's `dot` program is not on PATH; torchviz needs it to draw computation graphs. "
    "Install it with `sudo apt-get install graphviz` (Debian/Ubuntu), "
    "`brew install graphviz` (macOS) or `conda install -c conda-forge graphviz`."
)


def on_config(config):
    if shutil.which("dot") is None:
        from mkdocs.exceptions import PluginError

        raise PluginError(MISSING)


def install():
    if shutil.which("dot"):
        return 0
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print("Installing Graphviz with apt-get ...", flush=True)
        subprocess.run(["apt-get", "update", "-qq"], check=True)
        subprocess.run(["apt-get", "install", "-y", "-qq", "graphviz"], check=True)
        if shutil.which("dot"):
            return 0
    print(MISSING, file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(install())
