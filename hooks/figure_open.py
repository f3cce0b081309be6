"""A matplotlib figure opens full size, and on a phone keeps its text legible.

The snippet engine shows a figure as `<figure class="snippet-figure"><img ...></figure>`, scaled
to the column. On a 390 px screen a figure 755 px wide drew its 10 pt tick labels about 6 px
high. This hook makes the image a link to the SVG itself (as a graph is: "Open full size") and
gives it the width at which its text is 9 px high, `--legible-width`: matplotlib's default text
is 10 pt, and the SVG is `width` CSS px for `0.75 * width` pt. docs/assets/site.css lets a
figure no narrower than that, scrolling sideways in its box on a narrow screen.
tests/test_narrow_screens.py measures the text of every figure as displayed at 390 px.
"""

import math
import re

FIGURE = re.compile(r'<figure class="snippet-figure">(<img src="([^"]+)"[^>]*? width="(\d+)"[^>]*>)</figure>')
TEXT_PT, LEGIBLE_PX = 10, 9


def open_full_size(m):
    width = math.ceil(int(m[3]) * 0.75 * LEGIBLE_PX / TEXT_PT)
    return (f'<figure class="snippet-figure"><a class="snippet-figure__open" href="{m[2]}" '
            f'style="--legible-width: {width}px">{m[1]}<span>Open full size</span></a></figure>')


def on_post_page(output, page, config):  # after the engine has put its late HTML in
    return FIGURE.sub(open_full_size, output)
