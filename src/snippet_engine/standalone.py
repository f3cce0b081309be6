"""A snippet as a program that runs on its own, in an empty folder.

Copies and downloads must run without the rest of the repository: a snippet
that imports a helper module from its folder (`from elu import ELUFunction`)
or reads a data file (`bench/results/...json`) gets a setup part that
writes those files, as the build had them, before its own code. The helper
is written as a file rather than pasted in, so it is imported as a module
exactly as in the repository (same names, same tracebacks).
"""

import ast
import functools
import io
import sys
import zipfile
from importlib.machinery import PathFinder
from pathlib import Path

from snippet_engine.chapter import MARKER


def helpers(path, project):
    """The project's own modules that the snippet imports, with theirs, in import order: those
    of its folder (`elu`), and single-file modules of the project on the path (`autograd_steps`)."""
    found = []

    def visit(file):
        for name in imported(file, file.stat().st_mtime_ns):
            module = file.parent / f"{name}.py"
            if not module.is_file():
                module = project_module(name, project)
            if module and module not in found and module != path:
                found.append(module)
                visit(module)

    visit(path)
    return found


@functools.cache
def project_module(name, project):
    """The file of a top-level module that is part of the project, not an installed package."""
    if "." in name:
        return None
    spec = PathFinder.find_spec(name)
    origin = Path(spec.origin) if spec and spec.origin and spec.origin.endswith(".py") else None
    if origin and origin.name != "__init__.py" and origin.is_relative_to(project) \
            and not origin.is_relative_to(sys.prefix):
        return origin
    return None


@functools.cache
def imported(file, mtime_ns):
    """The names of the modules a file imports (parsed once for each version of the file)."""
    names = []
    for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
        elif isinstance(node, ast.Import):
            names += [a.name for a in node.names]
    return names


def literal(text):
    """Python source for a string literal holding `text`, as readable as it can be."""
    if "'''" not in text and not text.endswith("\\") and "\r" not in text:
        return "r'''" + text + "'''"
    return repr(text)


def without_markers(text):
    return "".join(line for line in text.splitlines(keepends=True) if not MARKER.search(line))


def setup_lines(paths, data, project, uses_file=None):
    """Lines that write `paths` (helper modules, into the working folder) and `data`
    (files under `project`, at their place relative to it). `uses_file`: a snippet
    path to set `__file__` to, for code that finds its data relative to itself."""
    if not paths and not data:
        return [file_line(uses_file, project), ""] if uses_file else []
    what = " and ".join(filter(None, [paths and "the helper modules it imports",
                                      data and "the data it reads"]))
    lines = [f"# Setup, so that this runs on its own in an empty folder: {what}.",
             "from pathlib import Path", ""]
    for path in paths:
        lines.append(f"Path({path.name!r}).write_text({literal(without_markers(path.read_text(encoding='utf-8')))})")
    for file in data:
        relative = file.relative_to(project).as_posix()
        if "/" in relative:
            lines.append(f"Path({relative!r}).parent.mkdir(parents=True, exist_ok=True)")
        lines.append(f"Path({relative!r}).write_text({literal(file.read_text(encoding='utf-8'))})")
    if uses_file:
        lines.append(file_line(uses_file, project))
    return lines + [""]


def file_line(path, project):
    relative = path.relative_to(project).as_posix()
    return f"__file__ = {relative!r}  # where this code lives in the repository: it finds its data from here"


def data_files(deps):
    """The data files (not modules) among a result's dependencies that exist."""
    return [Path(d) for d in deps if Path(d).suffix != ".py" and Path(d).is_file()]


def setup_for(path, deps, project):
    """The setup part of the standalone program for the snippet at `path`."""
    uses_file = "__file__" in path.read_text(encoding="utf-8")  # not defined under `python -c`
    return setup_lines(helpers(path, project), data_files(deps), project, path if uses_file else None)


def program(path, setup):
    """The whole snippet as a file that runs on its own (what a download holds), given its setup part."""
    lines = setup + without_markers(path.read_text(encoding="utf-8")).splitlines()
    return "\n".join(lines).rstrip() + "\n"


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


def requirements(packages):
    """Pins for pip: {name: version} as installed (a local build tag such as +cpu left out)."""
    return "".join(f"{name}=={version.split('+')[0]}\n" for name, version in packages.items() if version)


def bundle(programs, packages, environment):
    """A zip of every example's program ({path in the bundle: text}), requirements.txt and a
    README; the same bytes for the same content (fixed dates)."""
    files = {**programs, "requirements.txt": requirements(packages),
             "README.md": BUNDLE_README.format(environment=environment)}
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            archive.writestr(zipfile.ZipInfo(f"examples/{name}", date_time=(2026, 1, 1, 0, 0, 0)), files[name])
    return data.getvalue()

