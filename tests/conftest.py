import os
import re
import runpy
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from snippet_includes import line_range
from snippet_runner import SnippetError, SnippetRunner

ROOT = Path(__file__).resolve().parent.parent
SNIPPETS = ROOT / "snippets"
HOOKS = ROOT / "hooks"


@pytest.fixture(scope="session")
def built_site(tmp_path_factory):
    """The real site, built once per test session with `mkdocs build --strict`."""
    out = tmp_path_factory.mktemp("site")
    build = mkdocs(ROOT, "build", "--strict", "--site-dir", str(out))
    assert build.returncode == 0, build.stderr
    assert not re.search(r"^(WARNING|ERROR)", build.stderr, re.M), build.stderr
    return out


def pages(site):
    """Every HTML page of a built site but the 404 page."""
    return sorted(p for p in site.rglob("index.html") if "404" not in str(p))


@pytest.fixture(scope="session")
def runner():
    """The build's engine, without its cache: every snippet really runs."""
    return SnippetRunner(SNIPPETS)


@pytest.fixture
def run_script(tmp_path, monkeypatch):
    """run_script(path) runs a snippet as `python path` would (its folder first on
    sys.path, in a scratch working folder) and returns its variables."""
    monkeypatch.chdir(tmp_path)
    loaded = set(sys.modules)

    def run(path):
        monkeypatch.syspath_prepend(str(path.parent))
        return runpy.run_path(str(path))

    yield run
    for name in set(sys.modules) - loaded:  # a chapter's modules stay private to it
        if str(SNIPPETS) in str(getattr(sys.modules[name], "__file__", None)):
            del sys.modules[name]


def stdout_shown(runner, path, section=None):
    """The stdout the page shows under the block that includes `path` (or one section of it)."""
    result = runner.run(path)
    if result.error:
        raise SnippetError(result)
    return "".join(i["text"] for i in result.select(*line_range(path, section)) if i["kind"] == "stdout")


def mkdocs(project, *args, env=None, **kwargs):
    """Run the MkDocs CLI in a project folder; returns the CompletedProcess."""
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", *args], cwd=project, capture_output=True, text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1", **(env or {})}, **kwargs,
    )


class Project:
    """A throwaway site that uses the real snippet hook."""

    def __init__(self, root):
        self.root = root

    def write(self, relative, text):
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
        return path


@pytest.fixture
def project(tmp_path):
    site = Project(tmp_path)
    (tmp_path / "snippets").mkdir()
    site.write("mkdocs.yml", f"""
        site_name: Test
        theme: {{name: material, font: false}}
        markdown_extensions:
          - pymdownx.superfences
          - pymdownx.snippets: {{base_path: [snippets], check_paths: true}}
        hooks: ["{HOOKS / 'snippet_outputs.py'}"]
        watch: [snippets]
        """)
    return site


def pytest_collection_modifyitems(config, items):
    """Tests marked `cuda` run only where a CUDA GPU is available."""
    import torch

    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="no CUDA GPU on this machine")
    for item in items:
        if "cuda" in item.keywords:
            item.add_marker(skip)
