"""Formulas as text a reader can read (`∂ out/∂x_i = 3/2 (x_i + 2)`), for search's excerpts.

Material's search indexes a page as it is when the search plugin reads it (its
on_page_context), and then the formulas are still TeX: the katex plugin typesets them later,
in on_post_page. Just before the search plugin reads a page, the katex plugin hides each
formula from it (`data-search-exclude`, an attribute the search plugin removes once it has
read the page) and follows it with this plain-text version (pylatexenc's LaTeX-to-Unicode),
which leaves the page again once search has read it. The texts are kept in the katex plugin's
cache, so that an unchanged site does not import pylatexenc.
"""

import html
import re
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

from snippet_engine import cache_file
from snippet_engine.cache_file import CacheFolder

MATH = re.compile(r'<(span|div) class="arithmatex">(\\[(\[].*?\\[)\]])</\1>', re.S)
TEXT = re.compile(r'<span class="search-math-text">[^<]*</span>')
HIDDEN = 'data-search-exclude="tex"'  # Material's search skips the element, then drops the attribute


def converter() -> Callable[[str], str]:
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

    def convert(tex: str) -> str:
        nodes = latexwalker.LatexWalker(tex, latex_context=parse, tolerant_parsing=True).get_latex_nodes()[0]
        return " ".join(nodes2text.nodelist_to_text(nodes).split())

    return convert


class FormulaTexts:
    """The text of each formula, for one build, kept in `cache` for the pylatexenc version."""

    def __init__(self, cache: CacheFolder) -> None:
        self.cache, self.key = cache, cache_file.entry_key("formula texts", version("pylatexenc"), cache_file.code_digest(Path(__file__)))
        saved = cache.get(self.key)
        self.saved = saved if isinstance(saved, dict) else None  # what the cache holds
        self.texts: dict[str, str] = dict(self.saved or {})
        self.used: dict[str, str] = {}
        self.convert: Callable[[str], str] | None = None

    def text(self, tex: str) -> str:
        """The formula `\\(...\\)` or `\\[...\\]` as one line of Unicode: `\\frac{1}{4}` as `1/4`."""
        if not isinstance(self.texts.get(tex), str):
            self.convert = self.convert or converter()
            try:
                self.texts[tex] = self.convert(tex[2:-2])
            except Exception:  # TeX pylatexenc cannot read: the TeX itself; KaTeX says what is wrong
                self.texts[tex] = tex[2:-2]
        self.used[tex] = self.texts[tex]
        return self.texts[tex]

    def for_search(self, content: str) -> str:
        """Each formula of a page hidden from search and followed by its text."""
        def replace(m: re.Match[str]) -> str:
            text = html.escape(self.text(html.unescape(m[2])), quote=False)
            return (f'<{m[1]} class="arithmatex" {HIDDEN}>{m[2]}</{m[1]}>'
                    f'<span class="search-math-text">{text}</span>')

        return MATH.sub(replace, content)

    def removed(self, output: str) -> str:
        """The page as it was: the texts gone, the formulas shown (where no search plugin ran, which
        would have removed the attribute)."""
        return TEXT.sub("", output).replace(f'class="arithmatex" {HIDDEN}', 'class="arithmatex"')

    def save(self, every: bool = False) -> None:
        """The texts this build used (`every`: all it knows, for a build that stopped before its
        end, whose pages not rendered may use the others), if the cache holds other texts."""
        kept = self.texts if every else self.used
        if kept != self.saved:
            self.cache.put(self.key, kept)
            self.saved, self.texts = dict(kept), dict(kept)
