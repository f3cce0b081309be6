// Renders TeX to HTML with KaTeX for hooks/katex_math.py.
// Reads one JSON array of {tex, display} per line; writes one JSON array of
// {html} or {error} per line, in the same order.
import { createInterface } from "node:readline";
import katex from "katex";

for await (const line of createInterface({ input: process.stdin })) {
  const replies = JSON.parse(line).map(({ tex, display }) => {
    try {
      return { html: katex.renderToString(tex, { displayMode: display, throwOnError: true }) };
    } catch (err) {
      return { error: String(err.message) };
    }
  });
  process.stdout.write(JSON.stringify(replies) + "\n");
}
