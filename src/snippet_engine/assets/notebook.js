/* A notebook's cell runs after the cells above it, so its copy button copies them all. The page
   holds each cell's code once, in `data-cell`; pressing the button joins the cells up to it into
   the block's `data-copy`, which Material's clipboard then copies. */
document.addEventListener("click", event => {
  const block = event.target.closest(".md-code__button") && event.target.closest("div.highlight[data-cell]");
  if (!block) return;
  const cells = [...document.querySelectorAll("div.highlight[data-cell]")];
  block.dataset.copy = cells.slice(0, cells.indexOf(block) + 1).map(cell => cell.dataset.cell).join("\n\n") + "\n";
}, true);
