"""The step-through package (src/autograd_steps) as a wheel that the site offers among its
downloads: `pip install` of that one file gives a reader `show_backward`, needing torch and
Pygments (which Jupyter has), and Graphviz's `dot` for the picture. Built byte for byte the same from the same files."""

import base64
import hashlib
import io
import zipfile
from importlib import metadata
from pathlib import Path

from snippet_engine.cache_file import code_files

PACKAGE = Path(__file__).resolve().parent.parent / "autograd_steps"
NAME, SUMMARY = "autograd_steps", "Watch PyTorch's autograd engine run a backward pass, step by step, in a notebook"
WHEEL = "Wheel-Version: 1.0\nGenerator: snippet_engine\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def filename() -> str:
    return f"{NAME}-{metadata.version('autograd-inside-out')}-py3-none-any.whl"


def wheel() -> bytes:
    version = metadata.version("autograd-inside-out")
    dist = f"{NAME}-{version}.dist-info"
    entries = [(f"{NAME}/{p.relative_to(PACKAGE).as_posix()}", p.read_bytes()) for p in code_files(PACKAGE)]
    entries += [(f"{dist}/METADATA", (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {version}\nSummary: {SUMMARY}\n"
                                      "Requires-Python: >=3.11\nRequires-Dist: torch\nRequires-Dist: pygments\n").encode()),
                (f"{dist}/WHEEL", WHEEL.encode())]
    record = [f"{name},sha256={digest(data)},{len(data)}" for name, data in entries] + [f"{dist}/RECORD,,"]
    entries.append((f"{dist}/RECORD", ("\n".join(record) + "\n").encode()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))  # the same bytes every build
            info.compress_type, info.external_attr = zipfile.ZIP_DEFLATED, 0o644 << 16
            archive.writestr(info, data)
    return out.getvalue()


def digest(data: bytes) -> str:
    """A file's hash as a wheel's RECORD writes it."""
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
