"""Graphs drawn by torchviz, as a reader gets them: node text at least 12 px on screen at a
desktop width (1280 px) and a phone width (390 px), and no graph that scrolls in its box at
1280 px (test_every_page.py, on every page); a graph wider than a phone's column that scrolls
in its own box, and a link, with or without JavaScript, that opens the graph full size; and
the graph as text, a nested list that starts from the output and goes down the way backward
does, each node with its shape.
"""

import re

import pytest
from browsing import open_page, press
from conftest import soup


def page_soup(built_site, name):
    return soup(built_site / ("" if name == "home" else name) / "index.html")


@pytest.fixture(scope="module")
def graph_pages(built_site, urls):
    """The names of the pages that show a graph."""
    return [name for name in urls if page_soup(built_site, name).select(".snippet-graph")]


def test_the_site_shows_graphs(built_site, graph_pages):
    """test_every_page.py measures each graph's node text on its page."""
    assert sum(len(page_soup(built_site, name).select(".snippet-graph img")) for name in graph_pages) >= 10


@pytest.mark.parametrize("javascript", [True, False])
def test_a_click_or_the_enter_key_opens_a_graph_full_size(browser, urls, javascript):
    page = open_page(browser, urls["custom_functions"], scheme="dark", width=390, java_script_enabled=javascript)
    link = page.get_by_role("link", name=re.compile(r"^Computation graph with 25 nodes\s*Open full size$"))
    link.scroll_into_view_if_needed()
    assert link.get_by_text("Open full size").is_visible()
    assert link.evaluate("a => a.tabIndex") == 0, "reached with the Tab key"
    assert link.evaluate("a => a.scrollWidth > a.clientWidth"), "wider than a phone: it scrolls in its box"
    # The image loads as it comes near the screen (loading="lazy"): its width once it has loaded.
    natural, shown = link.locator("img").evaluate("i => i.decode().then(() => i.naturalWidth)"), page.url
    press(link)
    check_opened_full_size(page, natural)
    page.goto(shown)
    link.focus()
    page.keyboard.press("Enter")
    check_opened_full_size(page, natural)


def check_opened_full_size(page, width):
    page.wait_for_url("**/*.svg")
    assert page.evaluate("document.documentElement.localName") == "svg"
    assert abs(page.evaluate("document.documentElement.getBoundingClientRect().width") - width) <= 1
    assert "AddmmBackward0" in page.evaluate("document.documentElement.textContent")


def outline(items):
    """(depth, text) of each item of a nested list, in the order it reads."""
    found = []
    for li in items.find_all("li", recursive=False):
        found.append((0, li.find(string=True, recursive=False).strip()))
        found += [(depth + 1, text) for depth, text in (outline(li.ul) if li.ul else [])]
    return found


def graphs_as_text(built_site, name):
    return [outline(fold.ul) for fold in page_soup(built_site, name).select("details.snippet-graph__text")]


def test_the_first_gradients_graph_as_text_goes_from_the_output_to_the_leaf(built_site):
    assert graphs_as_text(built_site, "autograd_basics")[0] == [
        (0, "output ()"), (1, "MeanBackward0"), (2, "MulBackward0"), (3, "PowBackward0"),
        (4, "AddBackward0"), (5, "AccumulateGrad"), (6, "x (2, 2)"),
    ]


def test_the_mlps_graph_as_text_nests_each_layer_under_the_next(built_site):
    (mlp,) = [g for g in graphs_as_text(built_site, "custom_functions") if (3, "AddmmBackward0") in g]
    assert mlp == [
        (0, "output ()"), (1, "SumBackward0"), (2, "SoftmaxBackward0"), (3, "AddmmBackward0"),
        (4, "AccumulateGrad"), (5, "4.bias (10)"),
        (4, "ELUFunctionBackward"), (5, "AddmmBackward0"),
        (6, "AccumulateGrad"), (7, "2.bias (1024)"),
        (6, "ELUFunctionBackward"), (7, "AddmmBackward0"),
        (8, "AccumulateGrad"), (9, "0.bias (1024)"),
        (8, "TBackward0"), (9, "AccumulateGrad"), (10, "0.weight (1024, 512)"),
        (7, "saved tensor (10, 1024)"),
        (6, "TBackward0"), (7, "AccumulateGrad"), (8, "2.weight (1024, 1024)"),
        (5, "saved tensor (10, 1024)"),
        (4, "TBackward0"), (5, "AccumulateGrad"), (6, "4.weight (10, 1024)"),
    ]


def test_a_node_reached_again_is_listed_once_then_named_as_above(built_site):
    """y[0], y[1] and y[2] all read x: its AccumulateGrad is reached from four SelectBackward0 nodes."""
    (graph,) = graphs_as_text(built_site, "vector_jacobian_products")
    texts = [text for _, text in graph]
    assert texts.count("AccumulateGrad") == 1 and texts.count("x (2)") == 1
    assert texts.count("AccumulateGrad (see above)") == 3
    first = texts.index("AccumulateGrad")
    assert graph[first + 1] == (graph[first][0] + 1, "x (2)"), "the leaf under its AccumulateGrad"


def test_every_graph_as_text_lists_each_node_once_in_full(built_site, graph_pages):
    for name in graph_pages:
        for figure in page_soup(built_site, name).select("figure.snippet-graph"):
            (count,) = re.findall(r"^Computation graph with (\d+) nodes$", figure.img["alt"])
            items = outline(figure.select_one("details.snippet-graph__text > ul"))
            assert len([text for _, text in items if not text.endswith("(see above)")]) == int(count), name
            assert items[0][0] == 0 and items[0][1].startswith("output "), name
