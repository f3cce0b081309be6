"""Search shows a formula as text a reader can read (`∂ out/∂x_i = 3/2 (x_i + 2)`), not TeX.

Material's search indexes the page as it is when the search plugin reads it (its
on_page_context), and then the formulas are still TeX: the katex plugin
(src/snippet_engine/katex.py) typesets them later, in on_post_page. Just before the search
plugin reads a page, each formula is hidden from it (`data-search-exclude`, an attribute the
search plugin removes once it has read the page) and followed by a plain-text version of it
(pylatexenc's LaTeX-to-Unicode), which leaves the page again once it is rendered. The page
itself does not change. The text of each formula is kept in `.cache/search-math.json`, so that
an unchanged site does not import pylatexenc.
"""

import html
import json
import re
from importlib.metadata import version
from pathlib import Path

from mkdocs.plugins import event_priority

from snippet_engine.cache_file import write_json

MATH = re.compile(r'<(span|div) class="arithmatex">(\\[(\[].*?\\[)\]])</\1>', re.S)
TEXT = re.compile(r'<span class="search-math-text">[^<]*</span>')
state = {"file": None, "texts": {}, "used": {}, "convert": None}


def converter():
    """TeX -> text with pylatexenc, which knows \\frac but not amsmath's \\tfrac and \\dfrac,
    and drops \\texttt's argument."""
    from pylatexenc import latex2text, latexwalker, macrospec

    parse = latexwalker.get_default_latex_context_db()
    parse.add_context_category("site", prepend=True, macros=[macrospec.MacroSpec(m, "{{") for m in ("tfrac", "dfrac")])
    to_text = latex2text.get_default_latex_context_db()
    to_text.add_context_category("site", prepend=True, macros=[
        *(latex2text.MacroTextSpec(m, simplify_repl="%s/%s") for m in ("tfrac", "dfrac")),
        latex2text.MacroTextSpec("texttt", simplify_repl="%s")])
    nodes2text = latex2text.LatexNodes2Text(math_mode="text", latex_context=to_text)

    def convert(tex):
        nodes = latexwalker.LatexWalker(tex, latex_context=parse, tolerant_parsing=True).get_latex_nodes()[0]
        return " ".join(nodes2text.nodelist_to_text(nodes).split())

    return convert


def as_text(tex):
    """The formula `\\(...\\)` or `\\[...\\]` as one line of Unicode: `\\frac{1}{4}` as `1/4`."""
    if tex not in state["texts"]:
        state["convert"] = state["convert"] or converter()
        state["texts"][tex] = state["convert"](tex[2:-2])
    state["used"][tex] = state["texts"][tex]
    return state["texts"][tex]


def on_config(config):
    state["file"] = Path(config.config_file_path).resolve().parent / ".cache" / "search-math.json"
    state["version"], state["used"] = version("pylatexenc"), {}
    try:
        saved = json.loads(state["file"].read_text(encoding="utf-8"))
        state["texts"] = saved["texts"] if saved["pylatexenc"] == state["version"] else {}
    except (OSError, ValueError, KeyError, TypeError):
        state["texts"] = {}


@event_priority(100)  # before the search plugin reads the page
def on_page_context(context, page, config, nav):
    def for_search(m):
        text = html.escape(as_text(html.unescape(m[2])), quote=False)
        return (f'<{m[1]} class="arithmatex" data-search-exclude="tex">{m[2]}</{m[1]}>'
                f'<span class="search-math-text">{text}</span>')

    page.content = MATH.sub(for_search, page.content)
    return context


def on_post_page(output, page, config):
    """The text versions leave the page (the search plugin has dropped the attributes)."""
    return TEXT.sub("", output)


def on_post_build(config):
    if state["used"] != state["texts"] or not state["file"].exists():  # new formulas, or ones no page uses
        write_json(state["file"], {"pylatexenc": state["version"], "texts": state["used"]})
        state["texts"] = dict(state["used"])
