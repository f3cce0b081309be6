/* The step-through viewer of a backward pass recorded by autograd_steps.
   view.py writes its HTML and data; this script makes each figure.snippet-steps
   interactive: Previous / Next / Play, Left and Right arrows, a Backward mode (the
   steps in the order the engine ran them) and a Forward mode (the lines of the code,
   and the nodes each one added to the graph). A step marks its node in the graph and the
   line that made it in the viewer's copy of the code, and keeps both on screen. */
(() => {
  "use strict";
  const PLAY_MS = 1600;
  const reduced = matchMedia("(prefers-reduced-motion: reduce)");
  const MARKS = ["is-current", "is-done", "is-future", "is-in", "is-out"];

  const motion = () => (reduced.matches ? "instant" : "smooth");

  // Scroll `box`, never the page, so that `el` shows inside it.
  function reveal(box, el) {
    const b = box.getBoundingClientRect(), e = el.getBoundingClientRect();
    const top = e.top < b.top || e.bottom > b.bottom ? e.top - b.top - (b.height - e.height) / 2 : 0;
    const left = e.left < b.left || e.right > b.right ? e.left - b.left - Math.max(0, (b.width - e.width) / 2) : 0;
    if (top || left) box.scrollBy({top, left, behavior: motion()});
  }

  // Scroll the page so that the first of `choices` (lists of elements) that fits on the
  // screen below the page's header shows whole; nothing where none fits.
  function keepInView(...choices) {
    const header = document.querySelector(".md-header");
    const top = (header ? header.getBoundingClientRect().bottom : 0) + 8, bottom = innerHeight - 8;
    for (const parts of choices) {
      const boxes = parts.filter(Boolean).map(el => el.getBoundingClientRect());
      const first = Math.min(...boxes.map(b => b.top)), last = Math.max(...boxes.map(b => b.bottom));
      if (last - first > bottom - top) continue;
      const by = first < top ? first - top : last > bottom ? last - bottom : 0;
      if (by) scrollBy({top: by, behavior: motion()});
      return;
    }
  }

  function start(figure) {
    const data = JSON.parse(figure.querySelector(".snippet-steps__data").textContent);
    const $ = selector => figure.querySelector(selector);
    const graph = $(".snippet-steps__graph"), panel = $(".snippet-steps__panel"), code = $(".snippet-steps__code");
    const previous = $('[data-go="-1"]'), next = $('[data-go="1"]'), play = $('[data-go="play"]');
    const nodes = data.lines.map((_, i) => graph.querySelector(`[data-node="${i}"]`));
    const edges = data.edges.map((_, k) => graph.querySelector(`[data-edge="${k}"]`));
    const lines = new Map([...figure.querySelectorAll("[data-line]")].map(el => [+el.dataset.line, el]));
    let mode = "backward", index = 0, timer = null, lit = null;

    const list = () => (mode === "backward" ? data.steps : data.forward);
    const mark = (elements, name) => elements.forEach(el => el && el.classList.add(name));

    function show() {
      const items = list(), item = items[index];
      $(".snippet-steps__counter").textContent = `Step ${index + 1} of ${items.length}`;
      $(".snippet-steps__description").textContent = item.text;
      previous.setAttribute("aria-disabled", index === 0);
      next.setAttribute("aria-disabled", index === items.length - 1);
      graph.querySelectorAll("." + MARKS.join(", .")).forEach(el => el.classList.remove(...MARKS));
      let line;
      if (mode === "backward") {
        mark(data.steps.slice(0, index).map(s => nodes[s.node]), "is-done");
        mark([nodes[item.node]], "is-current");
        mark(item.in.map(k => edges[k]), "is-in");
        mark(item.out.map(k => edges[k]), "is-out");
        line = data.lines[item.node];
      } else {
        const future = new Set(data.forward.slice(index + 1).flatMap(f => f.nodes));
        mark([...future].map(i => nodes[i]), "is-future");
        mark(edges.filter((_, k) => future.has(data.edges[k][0]) || future.has(data.edges[k][1])), "is-future");
        mark(item.nodes.map(i => nodes[i]), "is-current");
        line = item.line;
      }
      panel.replaceChildren(...(mode === "backward" ? item.rows : []).flatMap(([kind, what, value]) => {
        const dt = document.createElement("dt"), dd = document.createElement("dd");
        dt.className = "is-" + kind;
        dt.textContent = what;
        dd.textContent = value;
        return [dt, dd];
      }));
      if (lit) lit.classList.remove("is-current");
      lit = lines.get(line) || null;
      if (lit) lit.classList.add("is-current");
    }

    // Bring the viewer on screen and scroll its code and graph to what the step marks. Not
    // on start, where reading the layout would make the browser lay the page out early.
    function follow() {
      const controls = $(".snippet-steps__controls");
      keepInView([controls, code, graph, $(".snippet-steps__now"), panel], [controls, code, graph]);
      if (lit) reveal(code, lit);
      const current = graph.querySelector(".is-current");
      if (current) reveal(graph, current);
    }

    function go(step) {
      index = Math.min(Math.max(index + step, 0), list().length - 1);
      show();
      follow();
    }

    function stop() {
      clearInterval(timer);
      timer = null;
      play.textContent = "Play";
    }

    function tick() {
      go(1);
      if (index === list().length - 1) stop();
    }

    function toggle() {
      if (timer) return stop();
      if (index === list().length - 1) index = -1;  // played to the end: start again
      play.textContent = "Pause";
      timer = setInterval(tick, PLAY_MS);
      tick();
    }

    previous.addEventListener("click", () => { stop(); go(-1); });
    next.addEventListener("click", () => { stop(); go(1); });
    play.addEventListener("click", toggle);
    figure.querySelectorAll("[data-mode]").forEach(button => {
      button.hidden = button.dataset.mode === "forward" && !data.forward.length;
      button.addEventListener("click", () => {
        stop();
        mode = button.dataset.mode;
        index = 0;
        figure.querySelectorAll("[data-mode]").forEach(b => b.setAttribute("aria-pressed", b === button));
        show();
        follow();
      });
    });
    figure.addEventListener("keydown", event => {
      const step = {ArrowLeft: -1, ArrowRight: 1}[event.key];
      if (!step || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      event.preventDefault();
      stop();
      go(step);
    });
    $(".snippet-steps__viewer").hidden = $(".snippet-steps__now").hidden = $(".snippet-steps__stage").hidden = false;
    $(".snippet-steps__table").open = false;
    // A graph wider than its box scrolls sideways: then a hint says so.
    new ResizeObserver(() => figure.classList.toggle("is-scrollable", graph.scrollWidth > graph.clientWidth + 1))
      .observe(graph);
    show();
  }

  // On the site, every viewer of the page; in a notebook, where each output carries this script,
  // the viewer of the output that runs it.
  const host = document.currentScript && document.currentScript.closest(".snippet-steps-host");
  (host || document).querySelectorAll("figure.snippet-steps").forEach(start);
})();
