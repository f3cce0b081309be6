"""The programs the project needs from the system, and how to get them.

Graphviz's `dot` draws the torchviz graphs; Chromium's headless shell runs the
browser tests and prints the PDF, where an emoji needs a colour emoji font (else
it prints as a missing glyph). The shell is Chromium's engine without the
browser around it: the same pages, laid out and printed the same, for about a
third less of the CPU that the whole browser takes headless.
The snippets plugin stops the build before any page is rendered when `dot`
is missing (`check_dot`). Run as a module it is the setup step
(`python -m snippet_engine.system_tools [--browser]`): as root on Debian or Ubuntu it
installs what is missing with apt-get; elsewhere it says how to install it
and exits non-zero.
"""

import os
import shutil
import subprocess
import sys

TOOLS = {
    "dot": ("graphviz", "Graphviz's `dot` program is not on PATH; torchviz needs it to draw computation graphs. "
            "Install it with `sudo apt-get install graphviz` (Debian/Ubuntu), `brew install graphviz` (macOS) "
            "or `conda install -c conda-forge graphviz`."),
    "chromium": ("chromium-headless-shell", "Chromium's headless shell is not on PATH; the browser tests and "
                 "the PDF drive it. Install it with `sudo apt-get install chromium-headless-shell` "
                 "(Debian/Ubuntu), or set CHROMIUM to the path of a Chromium or Chrome binary."),
    "emoji": ("fonts-noto-color-emoji", "No font on this system draws emoji, so Chromium shows and prints an emoji "
              "in a page or the PDF as a missing glyph. Install one with `sudo apt-get install "
              "fonts-noto-color-emoji` (Debian/Ubuntu); macOS and Windows have one."),
}


# How the project starts Chromium headless (the tests, the PDF): as root, with nothing it would fetch.
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run"]


def chromium() -> str | None:
    """The browser the tests drive: $CHROMIUM, else `chromium-headless-shell` on PATH (None when missing)."""
    return os.environ.get("CHROMIUM") or shutil.which("chromium-headless-shell")


def check_dot() -> None:
    if shutil.which("dot") is None:
        from mkdocs.exceptions import PluginError

        raise PluginError(TOOLS["dot"][1])


def present(tool: str) -> bool:
    """Whether a tool of TOOLS is there: a program on PATH, Chromium (`chromium`), a font that
    draws an emoji (🚀, which DejaVu, the fallback font on Debian, does not)."""
    if tool == "chromium":
        return chromium() is not None
    if tool == "emoji":  # macOS and Windows come with one, and without fontconfig
        return not sys.platform.startswith("linux") or shutil.which("fc-list") is not None and bool(
            subprocess.run(["fc-list", ":charset=1f680"], capture_output=True, text=True).stdout.strip())
    return shutil.which(tool) is not None


def install(programs: list[str]) -> int:
    missing = [p for p in programs if not present(p)]
    if missing and os.geteuid() == 0 and shutil.which("apt-get"):
        print(f"Installing {', '.join(TOOLS[p][0] for p in missing)} with apt-get ...", flush=True)
        subprocess.run(["apt-get", "update", "-qq"], check=True)
        subprocess.run(["apt-get", "install", "-y", "-qq", *(TOOLS[p][0] for p in missing)], check=True)
        missing = [p for p in missing if not present(p)]
    for program in missing:
        print(TOOLS[program][1], file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(install(["dot", "chromium", "emoji"] if "--browser" in sys.argv else ["dot"]))
