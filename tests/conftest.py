import builtins
import contextlib
import fcntl
import functools
import gc
import http.server
import importlib.util
import json
import mmap
import os
import queue
import re
import runpy
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
import urllib.request
from pathlib import Path

import psutil
import pytest
import yaml
from bs4 import BeautifulSoup
from mkdocs.config import load_config

from snippet_engine import kinds
from snippet_engine.chapter import included, line_range
from snippet_engine.kinds.graph import GRAPH
from snippet_engine.kinds.warning import WARNING
from snippet_engine.runner import Runner, SnippetError
from snippet_engine.shapes import Settings
from snippet_engine.system_tools import CHROMIUM_FLAGS, TOOLS, chromium

# Started in the background by a shell, pytest inherits SIGINT ignored, and so would every
# process a test starts: the tests that stop MkDocs or JupyterLab with Ctrl-C's SIGINT need the
# default, which a handler set here gives the processes started from now on.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# Two tests run at once (pytest-xdist), most often each with torch's OpenMP threads at work in a
# process of its own (a notebook's kernel, a benchmark, a build's worker): the threads of this
# process and of those it starts wait without spinning, as the build's workers' do
# (runner.Worker.start), leaving the cores to the others. As many threads, the same results.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

ROOT = Path(__file__).resolve().parent.parent
SNIPPETS = ROOT / "snippets"
# Pages that are no chapter (no notebook, no snippets folder): the home page, the notebooks'
# list, and the index of the error pages, which say `notebook: false` or hold no code.
INDEX_PAGES = ["index", "notebooks", "errors"]
CHAPTERS = sorted(p.stem for p in (ROOT / "docs").glob("*.md") if p.stem not in INDEX_PAGES)


STEP_THROUGH = frozenset({"step-through"})  # the options of a step-through block


OPTIONS = included(ROOT / "docs", SNIPPETS)  # each snippet the pages include: its blocks' options
RECORDED = {path for path, words in OPTIONS.items() if STEP_THROUGH & words}  # the build records their backward()
KIND_OF_BOX = {kind.box: kind.name for kind in kinds.KINDS}  # the class of what a kind shows under a block: its name


@functools.cache
def engine_settings():
    """The snippets plugin's settings in the real mkdocs.yml, defaults filled in: the tests run
    snippets as the build does."""
    return load_config(str(ROOT / "mkdocs.yml")).plugins["snippets"].config


def script(path):
    """The module that a script of the project is (bench/, hooks/: neither on sys.path nor a
    package), loaded from its file under its file's name."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def built_once(tmp_path_factory, name, build):
    """The folder `name` that `build(folder)` makes, once per test run: pytest-xdist's workers
    share it (the first to ask builds it; the others wait, then reuse it)."""
    shared = tmp_path_factory.getbasetemp()
    shared = shared.parent if os.environ.get("PYTEST_XDIST_WORKER") else shared
    out, done = shared / name, shared / f"{name}.done"
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            build(out)
            done.touch()
    return out


def build_strict(out, env=None):
    """The real site built into `out` with `mkdocs build --strict` (and `env`); it must succeed."""
    done = mkdocs(ROOT, "build", "--strict", "--site-dir", str(out), env=env)
    assert done.returncode == 0, done.stderr
    return done


def published():
    """The variables `make build` builds the published site with (the Makefile's `build` recipe),
    their make variables expanded: the paths of the downloads every page's footer links."""
    makefile = (ROOT / "Makefile").read_text()
    values = dict(re.findall(r"^(\w+) :?= (\S+)$", makefile, re.M))
    recipe = re.search(r"^build: .*\n\t(.*)\$\(BIN\)/mkdocs build", makefile, re.M)[1]
    return {name: re.sub(r"\$\((\w+)\)", lambda m: values[m[1]], value)
            for name, value in re.findall(r"(\w+)=(\S+)", recipe)}


@pytest.fixture(scope="session")
def built_site(tmp_path_factory):
    """The real site as `make build` publishes it (`published`), built with `mkdocs build
    --strict`, and with the whole book on one page, print.html, which is what PRINT=1 adds to a
    build (hooks/print_book.py) and `make pdf` prints: one build for the served pages, the links
    to the downloads and the book."""
    def build(out):
        done = build_strict(out, env={**published(), "PRINT": "1"})
        assert not re.search(r"^(WARNING|ERROR)", done.stderr, re.M), done.stderr

    return built_once(tmp_path_factory, "built-site", build)


@pytest.fixture(scope="module")
def worker(request):
    """One worker for the runners of a test module (`sharing`), stopped after the module: it
    imports the module's WORKER_PRELOAD, or the build's default `preload` (torch and the
    libraries the scrapers hook) where the module names none."""
    runner = Runner(Settings(Path("."), preload=getattr(request.module, "WORKER_PRELOAD", Settings.preload)))
    yield runner.workers[0]
    runner.close()


def sharing(worker, tmp_path, **settings):
    """A runner over tmp_path/snippets with a cache in tmp_path/cache, sharing a warm `worker`
    (the `worker` fixture) instead of starting its own."""
    (tmp_path / "snippets").mkdir(parents=True, exist_ok=True)
    runner = Runner(Settings(tmp_path / "snippets", tmp_path / "cache", **settings))
    runner.workers, runner.idle = [worker], queue.SimpleQueue()
    runner.idle.put(worker)
    return runner


def run_benchmark(script, output, *args, timeout=600):
    """`python script *args --output output`, run in output's folder: the data it wrote there."""
    done = subprocess.run([sys.executable, str(script), *map(str, args), "--output", str(output)], cwd=output.parent,
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr
    return json.loads(output.read_text())


def snippet(tmp_path, name, code):
    """tmp_path/snippets/`name`, holding `code`."""
    path = tmp_path / "snippets" / name
    path.write_text(code)
    return path


@functools.cache
def soup(path):
    """A built page, parsed once per test process: the tests only read it. Kept out of the
    garbage collector's passes (gc.freeze): a page's tree is some 60,000 objects that refer to
    each other, which each full pass walked again (13 s of CPU over the tests of the built
    HTML) and the process's exit took apart one by one (4 s). The garbage made so far is
    collected first, so that none of it is kept with the tree."""
    gc.collect()
    tree = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
    gc.freeze()
    return tree


def pages(site):
    """Every HTML page of a built site but the 404 page."""
    return sorted(p for p in site.rglob("index.html") if "404" not in str(p))


@pytest.fixture(scope="session")
def runner():
    """The build's engine, with the build's settings and cache: a snippet that the site's build
    (or another test process) runs already is waited for and taken from the cache, not run twice
    (Runner.claimed), so the chapters' tests need not wait for the whole site."""
    engine = Runner(engine_settings().settings(ROOT))
    yield engine
    engine.close()


def kind(output):
    """The name of the kind that shows the output (kinds.KINDS: warning, steps, graph, figure,
    text), and of a stream's text, its stream's: stdout or stderr."""
    return output["name"] if output["output_type"] == "stream" else kinds.kind_of(output).name


def normalised(text):
    """Output with traceback places made comparable: a copy or download runs the same code
    below a setup part, or as `python -c` (whose frames, "<string>", show no source line),
    so its line numbers and source lines differ."""
    return re.sub(r'File "[^"]*", line \d+(, in \S+)?(\n    \S.*)?', r"File …\1", text).rstrip()


def printed(outputs):
    return "".join(o["text"] for o in outputs if kind(o) == "stdout")


def graphs(outputs):
    """{"nodes", "edges"} of each graph among the outputs."""
    return [o["data"][GRAPH] for o in outputs if kind(o) == "graph"]


def warnings_in(outputs):
    """{"category", "message"} of each warning among the outputs."""
    return [o["data"][WARNING] for o in outputs if kind(o) == "warning"]


class Chapter:
    """The snippets of one chapter, as the page shows them and as a reader runs them."""

    def __init__(self, folder, runner, tmp_path, monkeypatch):
        self.folder, self.runner, self.tmp_path, self.monkeypatch = folder, runner, tmp_path, monkeypatch

    def path(self, name):
        return self.folder / name

    def result(self, name):
        """The engine's result for a snippet that must succeed, run as its page runs it."""
        path = self.path(name)
        result = self.runner.run(path, OPTIONS.get(path, frozenset()))
        if result.error:
            raise SnippetError(result)
        return result

    def outputs(self, name, section=None):
        """The outputs the page shows under the block that includes `name` (or one section of it)."""
        result = self.result(name)
        return result.select(*line_range(result.path, section)) if section else result.select()

    def shown(self, name, section=None):
        """The text the page prints under that block."""
        return printed(self.outputs(name, section))

    def lines(self, name, section=None):
        """(line, output) pairs of the snippet or one section: where each output came from."""
        result = self.result(name)
        first, last = line_range(result.path, section) if section else (None, None)
        return [(i["line"], i["output"]) for i in result.outputs
                if first is None or (i["line"] and first <= i["line"] <= last)]

    def line_of(self, name, code):
        """The number of the one line of the snippet that reads `code` (stripped)."""
        (number,) = [n for n, text in enumerate(self.path(name).read_text().splitlines(), 1) if text.strip() == code]
        return number

    def run(self, name):
        """Run a snippet as `python name` would, in a scratch folder; returns its variables."""
        self.monkeypatch.chdir(self.tmp_path)
        self.monkeypatch.syspath_prepend(str(self.folder))
        forget_snippet_modules()  # another chapter's elu.py is another module
        return runpy.run_path(str(self.path(name)))


def forget_snippet_modules():
    for name, module in list(sys.modules.items()):
        if str(getattr(module, "__file__", None) or "").startswith(str(SNIPPETS)):
            del sys.modules[name]


@pytest.fixture
def shown(monkeypatch):
    """What display() is given, as in a notebook: a step-through's Recording, show_backward's Viewer."""
    found: list = []
    monkeypatch.setattr(builtins, "display", found.append, raising=False)
    return found


@pytest.fixture
def chapter(request, runner, tmp_path, monkeypatch):
    """The chapter a test file is about: tests/chapters/test_<slug>.py tests snippets/<slug>/."""
    slug = Path(request.node.path).stem.removeprefix("test_")
    yield Chapter(SNIPPETS / slug, runner, tmp_path, monkeypatch)
    forget_snippet_modules()


def mkdocs(project, *args, env=None, **kwargs):
    """Run the MkDocs CLI in a project folder; returns the CompletedProcess."""
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", *args], cwd=project, capture_output=True, text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1", **(env or {})}, **kwargs,
    )


class Project:
    """A throwaway site with the real mkdocs.yml (strict, every plugin and hook) and its own pages."""

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
    (tmp_path / "docs").mkdir()
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    config["nav"] = ["index.md"]
    config["hooks"] = [str(ROOT / hook) for hook in config["hooks"]]
    config["theme"]["custom_dir"] = str(ROOT / config["theme"]["custom_dir"])
    # These pages' snippets do not use torch: starting the worker without it keeps the tests quick.
    next(p for p in config["plugins"] if isinstance(p, dict) and "snippets" in p)["snippets"]["preload"] = []
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    (tmp_path / "node_modules").symlink_to(ROOT / "node_modules")
    return site


# The slow tiers, marked by what a test uses (pyproject.toml registers the markers): `pytest -m
# "not browser and not jupyter"` is the quick loop, and `and not build` quicker still.
TIERS = {
    "browser": {"browser"},  # Chromium driven by Playwright
    "jupyter": {"jupyterlab", "executed"},  # a Jupyter kernel or JupyterLab (and tests marked so)
    "build": {"built_site", "project"},  # the real site built, or a throwaway site
}


@pytest.hookimpl(tryfirst=True)  # before `-m` selects by them
def pytest_collection_modifyitems(config, items):
    """The printed book's tests run first, then the built site's, then those that need no site
    (the chapters' among them): each pytest-xdist worker starts on one half of this order
    (`--dist worksteal`), so that one builds the site, the book and its PDF (the longest chain
    of any one test: some 25 s for the PDF after two builds) from the start, while the other runs
    the tests that need no site. Tests marked `cuda` run only where a CUDA GPU is."""
    import torch

    def needs(item):
        return getattr(item, "fixturenames", ())

    for item in items:
        for marker, fixtures in TIERS.items():
            if fixtures & set(needs(item)):
                item.add_marker(marker)
    items.sort(key=lambda item: ("book" not in needs(item), "built_site" not in needs(item)))
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="no CUDA GPU on this machine")
    for item in items:
        if "cuda" in item.keywords:
            item.add_marker(skip)


# The built site in a real browser: Chromium driven by Playwright (tests/browsing.py).


@pytest.fixture(scope="session")
def site_url(built_site):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=built_site)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    if chromium() is None:
        pytest.fail(TOOLS["chromium"][1], pytrace=False)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def urls(built_site, site_url):
    """{name: URL} of every page; the home page is "home"."""
    found = {}
    for page in pages(built_site):
        folder = page.parent.relative_to(built_site).as_posix()
        found["home" if folder == "." else folder] = f"{site_url}/" if folder == "." else f"{site_url}/{folder}/"
    return found


# JupyterLab on 127.0.0.1, with a real browser (test_jupyter_viewer.py, test_notebooks.py).


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def jupyterlab_server(tmp_path_factory):
    """JupyterLab on 127.0.0.1 serving a folder `work`, with no token and every setting in the
    folder above it; one for the tests of a process, stopped after them, and with it its kernels.
    It picks its own port (a port picked here could be taken before the server binds it, and the
    server would go on another one), which it writes in a file before it listens on it: the
    server is known by its URL in that file once it answers there and holds the port."""
    tmp_path = tmp_path_factory.mktemp("jupyterlab")
    work, runtime = tmp_path / "work", tmp_path / "run"
    work.mkdir()
    config = {"ServerApp": {"ip": "127.0.0.1", "port": 0, "open_browser": False, "root_dir": str(work),
                            "allow_root": True},  # CI containers run as root
              "IdentityProvider": {"token": ""}, "PasswordIdentityProvider": {"hashed_password": ""},
              "LabApp": {"expose_app_in_browser": True}}
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "jupyter_server_config.json").write_text(json.dumps(config))
    notices = tmp_path / "settings" / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    notices.parent.mkdir(parents=True)  # no asking whether to fetch news from the internet
    notices.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path / "config"), "JUPYTER_RUNTIME_DIR": str(runtime),
           "JUPYTERLAB_SETTINGS_DIR": str(tmp_path / "settings"), "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "ws"),
           "IPYTHONDIR": str(tmp_path / "ipython")}
    log = open(tmp_path / "jupyterlab.log", "w")
    server = subprocess.Popen([sys.executable, "-m", "jupyterlab"], env=env, cwd=work, stdin=subprocess.DEVNULL,
                              stdout=log, stderr=subprocess.STDOUT)
    info = runtime / f"jpserver-{server.pid}.json"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                found = json.loads(info.read_text())
                urllib.request.urlopen(f"{found['url']}api/status", timeout=1)
                break
            except (OSError, ValueError):  # not written yet, or written in part, or not listening yet
                assert server.poll() is None, (tmp_path / "jupyterlab.log").read_text()
                assert time.monotonic() < deadline, f"JupyterLab did not answer within 120 s:\n" \
                                                    f"{(tmp_path / 'jupyterlab.log').read_text()}"
                time.sleep(0.2)
        listening = [c.laddr.port for c in psutil.Process(server.pid).net_connections("tcp")
                     if c.status == psutil.CONN_LISTEN]
        assert found["port"] in listening, f"another process answered on port {found['port']}"
        yield found["url"].rstrip("/"), work
    finally:
        settled(runtime)
        kernels = children(server.pid)
        server.terminate()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()  # the test fails below, and leaves nothing running
            server.wait()
        left = [pid for pid in kernels if Path(f"/proc/{pid}").exists()]
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        log.close()
    assert server.returncode != -signal.SIGKILL, "the server stopped when asked to"
    assert not left, "the server stopped its kernels"


@pytest.fixture
def jupyterlab(jupyterlab_server, browser):
    """The process's JupyterLab, (URL, the folder it serves), as a new one would be for the test:
    once it ends, its pages are closed, and the settings it changed (the dark theme) and the
    notebooks JupyterLab would open again (its workspace) are gone."""
    url, work = jupyterlab_server
    settings, workspaces = work.parent / "settings", work.parent / "ws"
    first = {p: p.read_bytes() for p in settings.rglob("*") if p.is_file()}
    yield url, work
    for context in browser.contexts:
        if any(page.url.startswith(url) for page in context.pages):
            context.close()
    for path in [*settings.rglob("*"), *workspaces.rglob("*")]:
        if path.is_file() and path not in first:
            path.unlink()
    for path, data in first.items():
        path.write_bytes(data)


def settled(runtime, seconds=60):
    """Wait until each kernel that the server started (a connection file in its runtime folder)
    answers a kernel_info request: one asked to shut down while it starts can keep the server from
    stopping (seen once: a test that opens a notebook ended 0.06 s after the browser connected to
    its new kernel, and the server did not stop in 60 s). The server's list of kernels cannot
    tell: one whose first connection from the browser met jupyter_server's race (a 500 in the
    log, `'NoneType' object has no attribute 'kernel_ws_protocol'`) stays "starting" there,
    though it runs."""
    from jupyter_client import BlockingKernelClient

    for connection in runtime.glob("kernel-*.json"):
        client = BlockingKernelClient(connection_file=str(connection))
        client.load_connection_file()
        client.start_channels()
        try:
            with contextlib.suppress(RuntimeError):  # not in time, or it died: the teardown finds out
                client.wait_for_ready(timeout=seconds)
        finally:
            client.stop_channels()


def torch_libraries_holding(text, pattern="*.so"):
    """The names of torch's shared libraries (torch/lib/`pattern`) whose bytes hold `text`: what
    the C++ code can print. Read through mmap, not copied (libtorch_cpu.so is some 400 MB)."""
    folder = Path(importlib.util.find_spec("torch").origin).parent / "lib"
    found = []
    for library in sorted(folder.glob(pattern)):
        with open(library, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            if data.find(text) != -1:
                found.append(library.name)
    return found


def children(pid):
    """The processes that `pid` started (Linux's /proc): a server's kernels."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):  # a process that ended meanwhile
            if int(stat.read_text().rsplit(") ", 1)[1].split()[1]) == pid:
                found.append(int(stat.parent.name))
    return found
