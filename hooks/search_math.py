"""Search shows a formula as text a reader can read (`∂ out/∂x_i = 3/2 (x_i + 2)`), not TeX.

Material's search indexes the page as it is when the search plugin reads it (its
on_page_context), and then the formulas are still TeX: hooks/katex_math.py typesets them later,
in on_post_page. Just before the search plugin reads a page, each formula is hidden from it
(`data-search-exclude`, an attribute the search plugin removes once it has read the page) and
followed by a plain-text version of it (pylatexenc's LaTeX-to-Unicode), which leaves the page
again once it is rendered. The page itself does not change.
"""

import html
import re

from mkdocs.plugins import event_priority
from pylatexenc import latex2text, latexwalker, macrospec

MATH = re.compile(r'<(span|div) class="arithmatex">(\\[(\[].*?\\[)\]])</\1>', re.S)
TEXT = re.compile(r'<span class="search-math-text">[^<]*</span>')
# pylatexenc knows \frac but not amsmath's \tfrac and \dfrac, and drops \texttt's argument.
PARSE = latexwalker.get_default_latex_context_db()
PARSE.add_context_category("site", prepend=True, macros=[macrospec.MacroSpec(m, "{{") for m in ("tfrac", "dfrac")])
TO_TEXT = latex2text.get_default_latex_context_db()
TO_TEXT.add_context_category("site", prepend=True, macros=[
    *(latex2text.MacroTextSpec(m, simplify_repl="%s/%s") for m in ("tfrac", "dfrac")),
    latex2text.MacroTextSpec("texttt", simplify_repl="%s")])
converter = latex2text.LatexNodes2Text(math_mode="text", latex_context=TO_TEXT)


def as_text(tex):
    """The formula as one line of Unicode text: `\\frac{1}{4}` as `1/4`, `\\partial` as `∂`."""
    nodes = latexwalker.LatexWalker(tex[2:-2], latex_context=PARSE, tolerant_parsing=True).get_latex_nodes()[0]
    return " ".join(converter.nodelist_to_text(nodes).split())


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
