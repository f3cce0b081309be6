// Renders TeX to HTML with KaTeX for the `katex` plugin (katex.py).
// Usage: node katex_render.mjs /path/to/node_modules/katex/dist/katex.mjs
// KaTeX is imported from the path given, not looked up from this file's folder.
// Reads one JSON array of {tex, display} per line; writes one JSON array of
// {html} or {error} per line, in the same order.
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const { default: katex } = await import(pathToFileURL(process.argv[2]).href);

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
