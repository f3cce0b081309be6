"""The copy of the site read from disk: built with OFFLINE=1 (Material's offline plugin,
hooks/offline.py) and opened with file:// in Chromium, as a reader who unzipped it would."""

import os
import re
import shutil
import stat
import subprocess
import sys
import zipfile

import pytest
from browsing import SHOTS
from conftest import CHAPTERS, ROOT, build_strict, built_once, mkdocs, pages, published


@pytest.fixture(scope="session")
def offline_site(tmp_path_factory, built_site):
    """The copy read from disk; built after the site (built_site), whose snippets' runs fill the
    cache it reads: on a fresh clone both builds would otherwise run every snippet at once."""
    def build(folder):
        build_strict(folder / "autograd-inside-out", env={"OFFLINE": "1"})

    return built_once(tmp_path_factory, "offline", build) / "autograd-inside-out"


def open_file(browser, path, width=1280):
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.errors, page.requests = [], []
    page.on("console", lambda m: m.type == "error" and page.errors.append(m.text))
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("request", lambda r: page.requests.append(r.url))
    # Chromium does not load a favicon from disk (the file is there): not an error of the page.
    page.on("requestfailed", lambda r: r.url.endswith("/favicon.png") or page.errors.append(f"failed: {r.url}"))
    page.goto(path.as_uri(), wait_until="load")
    return page


def test_every_link_of_the_navigation_opens_its_page(browser, offline_site):
    page = open_file(browser, offline_site / "index.html")
    links = page.eval_on_selector_all("nav.md-nav--primary a.md-nav__link[href]", "as => as.map(a => a.href)")
    assert len(links) >= 2 * len(CHAPTERS)
    for url in sorted(set(links)):
        assert url.startswith("file://") and url.split("#")[0].endswith(".html"), url
        page.goto(url, wait_until="load")
        assert page.locator(".md-content article h1").count() == 1, f"{url}: not a page of the site"
    assert not page.errors, page.errors
    assert all(u.startswith(("file://", "data:", "blob:", "about:")) for u in page.requests), page.requests
    page.context.close()


TRACEBACK = """Traceback (most recent call last):
  File "C:\\Users\\me\\train.py", line 166, in train
    loss.backward()
  File "C:\\Python39\\lib\\site-packages\\torch\\_tensor.py", line 307, in backward
    torch.autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"""


def test_search_finds_results_from_disk(browser, offline_site):
    page = open_file(browser, offline_site / "index.html")
    box = page.locator("input.md-search__input")
    box.click()
    # The query entered whole (as pasted): typed, each letter's query is answered in turn, and
    # the first result shown may be that of "gra" (test_search.py waits for every answer).
    box.fill("gradcheck")
    box.press("End")
    first = page.locator(".md-search-result__item h1").first
    first.wait_for(timeout=15_000)
    assert first.inner_text() == "Custom autograd Functions"
    # A traceback pasted whole: the search worker, run in an iframe from disk, reads it as the
    # served site's does (hooks/search_worker.js) and puts the section of its message first.
    box.fill(TRACEBACK)
    box.press("End")
    page.wait_for_function(r"""() => {
        const link = document.querySelector(".md-search-result__item a[href*='#']");
        return link && /errors_graph\.html(\?[^#]*)?#does-not-require-grad$/.test(link.getAttribute("href"));
    }""", timeout=15_000)
    page.screenshot(path=SHOTS / "offline-search.png")
    assert not page.errors, page.errors
    page.context.close()


@pytest.mark.parametrize("name", ["autograd_basics", "custom_functions", "saving_memory"])
def test_math_graphs_figures_and_the_viewer_work_from_disk(browser, offline_site, name):
    page = open_file(browser, offline_site / f"{name}.html")
    page.add_style_tag(content=".md-typeset * { content-visibility: visible !important }")
    page.evaluate("document.querySelectorAll('img[loading=lazy]').forEach(i => i.loading = 'eager')")
    page.wait_for_function("[...document.images].every(i => i.complete)")
    assert page.evaluate("[...document.images].filter(i => !i.naturalWidth).map(i => i.src)") == []
    assert page.locator(".katex").count() > 0
    assert page.evaluate("document.fonts.check('16px KaTeX_Main')"), "KaTeX's fonts did not load"
    viewer = page.locator("figure.snippet-steps")
    if viewer.count():
        counter = viewer.first.locator(".snippet-steps__counter")
        before = counter.inner_text()
        viewer.first.locator("button[data-go='1']").click()
        assert counter.inner_text() != before
    assert not page.errors, page.errors
    page.context.close()


def test_the_published_site_keeps_folder_urls_and_links_the_copy_and_the_pdf(built_site):
    """The site as `make build` builds it (conftest.published): served, its pages keep folder URLs,
    and every page's footer links the copy to read from disk and the PDF."""
    assert published() == {"OFFLINE_DOWNLOAD": "downloads/autograd-inside-out.zip",
                           "PDF_DOWNLOAD": "downloads/autograd-inside-out.pdf",
                           "SOURCE_DOWNLOAD": "downloads/autograd-inside-out-source.zip"}
    assert (built_site / "autograd_basics" / "index.html").is_file()
    for page in [built_site / "index.html", built_site / "gpu" / "index.html"]:
        for download in ("autograd-inside-out.zip", "autograd-inside-out.pdf"):
            assert re.search(rf'<a href="(\.\./)?downloads/{re.escape(download)}" download>', page.read_text()), page


def unpacked(archive, folder):
    """The files of a zip as `unzip` writes them, symbolic links as links (zipfile's extractall
    writes a link as a file holding its target)."""
    with zipfile.ZipFile(archive) as zipped:
        for info in zipped.infolist():
            if stat.S_ISLNK(info.external_attr >> 16):
                (folder / info.filename).parent.mkdir(parents=True, exist_ok=True)
                os.symlink(zipped.read(info).decode(), folder / info.filename)
            else:
                zipped.extract(info, folder)
        return [info.filename for info in zipped.infolist() if not info.is_dir()]


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="`make source` lists the files of a git checkout")
def test_the_source_download_holds_every_tracked_file_and_the_site_builds_from_it(built_site, tmp_path):
    """`make source` (which `make build` runs; the home page links what it makes) zips what `git
    archive` gives: unpacked in an empty folder, it holds every tracked file as the checkout has
    it, and the site builds from it, strict, with the environment already set up here (the
    virtual environment, node_modules) and the snippets' results this test run made (.cache)."""
    home = (built_site / "index.html").read_text()
    assert '(<a href="downloads/autograd-inside-out-source.zip" download>download it</a> and unzip it' in home
    archive = tmp_path / "source.zip"
    done = subprocess.run(["make", "--no-print-directory", "source", f"SOURCE_OUT={archive}"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True)
    names = unpacked(archive, tmp_path)
    source = tmp_path / "autograd-inside-out-source"
    assert sorted(names) == sorted(f"{source.name}/{name}" for name in tracked.stdout.split("\0") if name)
    for name in tracked.stdout.split("\0")[:-1]:
        copy, original = source / name, ROOT / name
        if original.is_symlink():
            assert os.readlink(copy) == os.readlink(original), name
        else:
            assert copy.read_bytes() == original.read_bytes(), name
    (source / "node_modules").symlink_to(ROOT / "node_modules")
    for cache in ("snippets", "katex"):
        shutil.copytree(ROOT / ".cache" / cache, source / ".cache" / cache)
    env = {"PYTHONPATH": str(source / "src")}  # its own engine, not the checkout's
    engine = subprocess.run([sys.executable, "-c", "import snippet_engine; print(snippet_engine.__file__)"],
                            env={**os.environ, **env}, capture_output=True, text=True, check=True)
    assert engine.stdout.startswith(str(source / "src")), engine.stdout
    built = mkdocs(source, "build", "--strict", "--site-dir", str(tmp_path / "site"), env=env)
    assert built.returncode == 0, built.stderr
    assert [p.relative_to(tmp_path / "site") for p in pages(tmp_path / "site")] == \
        [p.relative_to(built_site) for p in pages(built_site)]
