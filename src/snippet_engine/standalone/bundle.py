"""The download of every example: a zip of their programs, requirements.txt and a README."""

import io
import zipfile
from collections.abc import Mapping

BUNDLE_README = """# Autograd Inside Out: the examples

Each file is one example of the site, the same as its download from the title of
its code block: it runs on its own, in an empty folder, and prints what the page
shows under it. The folders are the chapters.

    python -m venv .venv
    . .venv/bin/activate
    pip install -r requirements.txt
    cd autograd_basics
    python first_gradient.py

requirements.txt pins the packages that produced the outputs on the site, which
ran them with {environment}. The examples that draw a graph also need Graphviz's
`dot` program (`apt-get install graphviz`, `brew install graphviz`, or
`conda install -c conda-forge graphviz`).
"""


def requirements(packages: Mapping[str, str | None]) -> str:
    """Pins for pip: {name: version} as installed (a local build tag such as +cpu left out)."""
    return "".join(f"{name}=={version.split('+')[0]}\n" for name, version in packages.items() if version)


def bundle(programs: dict[str, str], packages: Mapping[str, str | None], environment: str) -> bytes:
    """A zip of every example's program ({path in the bundle: text}), requirements.txt and a
    README; the same bytes for the same content (fixed dates)."""
    files = {**programs, "requirements.txt": requirements(packages),
             "README.md": BUNDLE_README.format(environment=environment)}
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            archive.writestr(zipfile.ZipInfo(f"examples/{name}", date_time=(2026, 1, 1, 0, 0, 0)), files[name])
    return data.getvalue()
