"""Where a chapter's notebook displays a graph that a snippet renders to a file (notebooks.py)."""

from snippet_engine import standalone
from snippet_engine.kinds.graph import GRAPH
from snippet_engine.notebooks import graphs_rendered


def graph(line):
    return {"line": line, "output": {"output_type": "display_data", "data": {GRAPH: "{}", "text/plain": "graph"}}}


def test_a_graph_is_displayed_after_the_render_call_that_drew_it_and_one_drawn_on_no_line_of_the_snippet_is_left_alone(tmp_path):
    path = tmp_path / "snippet.py"
    path.write_text("import graphviz\n\ng = graphviz.Digraph()\ng.render('g')\nh = graphviz.Digraph()\nh.render('h')\n")
    source = standalone.Source(path, tmp_path)
    # A graph drawn where no line of the snippet is on the stack (a thread it started) has no line.
    found = list(graphs_rendered(source, 1, 6, [graph(None), graph(4)]))
    assert [(statement.first, name) for statement, name in found] == [(4, "g")]
    assert list(graphs_rendered(source, 1, 6, [graph(None)])) == []
