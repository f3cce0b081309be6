/* The step-through viewer of a backward pass recorded by autograd_steps.
   view.py writes its HTML and data; this script makes each figure.snippet-steps
   interactive: Previous / Next / Play, Left and Right arrows, a Backward mode (the
   steps in the order the engine ran them) and a Forward mode (the lines of the code,
   and the nodes each one added to the graph); buttons that go to the first NaN/inf, the
   largest and the smallest gradient; a node clicked (or Enter on it) goes to its step;
   the graph zooms and pans in its box; the table of gradient norms sorts by a column and
   goes to a row's step. A step marks its node in the graph and the line that made it in
   the viewer's copy of the code, and keeps both on screen below the controls, which stay
   at the top of the screen with the step's text. A graph drawn as a tree of its modules
   opens a module from its box, the choice of module, a step or a search, and goes back up
   one level or to all modules; a comparison (compare) goes to the node that changed most. */
(() => {
  "use strict";
  const PLAY_MS = 1600;
  const ZOOM = 1.25;  // a zoom button's factor
  const reduced = matchMedia("(prefers-reduced-motion: reduce)");
  const MARKS = ["is-current", "is-done", "is-future", "is-in", "is-out"];

  const motion = () => (reduced.matches ? "instant" : "smooth");

  // The smallest rectangle around elements' boxes.
  function around(elements) {
    const rs = elements.map(el => el.getBoundingClientRect());
    const [left, top] = [Math.min(...rs.map(r => r.left)), Math.min(...rs.map(r => r.top))];
    const [right, bottom] = [Math.max(...rs.map(r => r.right)), Math.max(...rs.map(r => r.bottom))];
    return {left, top, right, bottom, width: right - left, height: bottom - top};
  }

  // Scroll `box`, never the page, so that the elements show inside it (the first of them where
  // not all fit), centred where they were out. The box scrolls by its own CSS pixels, which a
  // notebook's output zooms (steps.css).
  function reveal(box, ...elements) {
    const b = box.getBoundingClientRect(), scale = b.width / box.offsetWidth || 1;
    let e = around(elements);
    if (e.width > box.clientWidth * scale || e.height > box.clientHeight * scale) e = around(elements.slice(0, 1));
    const [right, bottom] = [b.left + box.clientWidth * scale, b.top + box.clientHeight * scale];  // inside the scroll bars
    const top = e.top < b.top || e.bottom > bottom ? e.top - b.top - (bottom - b.top - e.height) / 2 : 0;
    const left = e.left < b.left || e.right > right ? e.left - b.left - Math.max(0, (right - b.left - e.width) / 2) : 0;
    if (top || left) box.scrollBy({top: top / scale, left: left / scale, behavior: "instant"});
  }

  // What scrolls the viewer up and down: the page, or in JupyterLab the notebook's panel; and
  // the part of the screen it shows, [top, bottom], below the site's header.
  function scroller(figure) {
    for (let e = figure.parentElement; e && e !== document.body; e = e.parentElement) {
      const overflow = getComputedStyle(e).overflowY;
      if ((overflow === "auto" || overflow === "scroll") && e.scrollHeight > e.clientHeight) {
        const r = e.getBoundingClientRect();
        return [e, r.top, r.bottom];
      }
    }
    const header = document.querySelector(".md-header");
    return [window, header ? header.getBoundingClientRect().bottom : 0, innerHeight];
  }

  // Scroll the page so that the first of `choices` (lists of elements) that fits on the screen
  // below `bar` (the controls, which stick to the top of the screen) shows whole.
  function keepInView(figure, bar, ...choices) {
    const [box, screenTop, bottom] = scroller(figure);
    const stuck = screenTop + bar.getBoundingClientRect().height + 8;
    const top = Math.max(stuck, bar.getBoundingClientRect().bottom + 8);
    for (const parts of choices) {
      const boxes = parts.filter(Boolean).map(el => el.getBoundingClientRect());
      if (!boxes.length) continue;
      const first = Math.min(...boxes.map(b => b.top)), last = Math.max(...boxes.map(b => b.bottom));
      if (last - first > bottom - 8 - stuck) continue;
      const by = first < top ? first - stuck : last > bottom - 8 ? last - bottom + 8 : 0;
      if (by) box.scrollBy({top: by, behavior: motion()});
      return;
    }
  }

  function start(figure) {
    const data = JSON.parse(figure.querySelector(".snippet-steps__data").textContent);
    const $ = selector => figure.querySelector(selector);
    const graph = $(".snippet-steps__graph"), panel = $(".snippet-steps__panel"), code = $(".snippet-steps__code");
    const bar = $(".snippet-steps__viewer"), svg = graph.querySelector("svg");
    const previous = $('[data-go="-1"]'), next = $('[data-go="1"]'), play = $('[data-go="play"]');
    const nodes = data.lines.map((_, i) => graph.querySelector(`[data-node="${i}"]`));
    const edges = data.edges.map((_, k) => graph.querySelector(`[data-edge="${k}"]`));
    const lines = new Map([...figure.querySelectorAll("[data-line]")].map(el => [+el.dataset.line, el]));
    const stepOf = new Map(data.steps.map((s, i) => [s.node, i]));
    let mode = "backward", index = 0, timer = null, lit = null, zoom = 1;
    // A graph drawn collapsed by module (layout.py) is a tree of views: views[0] the whole graph,
    // each box in a view a module, which opens views[k] (its data-module); data.views[k] the
    // view holding that box, data.place[i] the view that draws node i itself.
    const views = svg ? [...svg.querySelectorAll(":scope > svg[data-view]")] : [];
    const modules = $(".snippet-steps__modules"), allModules = $('button[data-view="0"]'), up = $('button[data-view="up"]');
    let view = 0;
    const depth = k => (k > 0 ? depth(data.views[k]) + 1 : 0);
    // What draws node i in view k: the node, or the box of the module holding it; null where k does not hold it.
    function drawnIn(i, k) {
      let w = data.place[i];
      if (w === k) return nodes[i];
      while (w > 0 && data.views[w] !== k) w = data.views[w];
      return w > 0 ? views[k].querySelector(`[data-module="${w}"]`) : null;
    }
    // The view a step to node i shows: the one on show where it holds the node, else the node's
    // own view or the view above it as deep as the one on show.
    function viewFor(i) {
      if (drawnIn(i, view)) return view;
      let w = data.place[i];
      while (depth(w) > depth(view)) w = data.views[w];
      return w;
    }

    const list = () => (mode === "backward" ? data.steps : data.forward);
    const mark = (elements, name) => elements.forEach(el => el && el.classList.add(name));

    // `keep`: the view on show stays, though it does not hold the step's node (a module opened
    // that holds none of the steps).
    function show(keep = false) {
      const items = list(), item = items[index];
      if (!item) return;  // a recording that failed at its first node: the error says why
      $(".snippet-steps__counter").textContent = `Step ${index + 1} of ${items.length}`;
      $(".snippet-steps__description").textContent = item.text;
      previous.setAttribute("aria-disabled", index === 0);
      next.setAttribute("aria-disabled", index === items.length - 1);
      graph.querySelectorAll("." + MARKS.join(", .")).forEach(el => el.classList.remove(...MARKS));
      let line;
      const first = mode === "backward" ? item.node : item.nodes[0];
      if (views.length && !keep) showView(viewFor(first));
      // The step's nodes as the view on show draws them (themselves, or their modules' boxes): a
      // node of a hidden view is not current, or the graph would scroll to where it is not.
      const current = i => (views.length ? drawnIn(i, view) : nodes[i]);
      if (mode === "backward") {
        mark(data.steps.slice(0, index).map(s => nodes[s.node]), "is-done");
        mark([current(item.node)], "is-current");
        mark(item.in.map(k => edges[k]), "is-in");
        mark(item.out.map(k => edges[k]), "is-out");
        line = data.lines[item.node];
      } else {
        const future = new Set(data.forward.slice(index + 1).flatMap(f => f.nodes));
        mark([...future].map(i => nodes[i]), "is-future");
        mark(edges.filter((_, k) => future.has(data.edges[k][0]) || future.has(data.edges[k][1])), "is-future");
        mark(item.nodes.map(current), "is-current");
        line = item.line;
      }
      panel.replaceChildren(...(mode === "backward" ? item.rows : []).flatMap(([kind, what, value, flag]) => {
        const dt = document.createElement("dt"), dd = document.createElement("dd");
        dt.className = "is-" + kind;
        dt.textContent = what;
        dd.textContent = value;
        if (flag) dt.classList.add("is-" + flag), dd.classList.add("is-" + flag);
        return [dt, dd];
      }));
      if (lit) lit.classList.remove("is-current");
      lit = lines.get(line) || null;
      if (lit) lit.classList.add("is-current");
    }

    // Scroll the code and the graph to what the step marks.
    function revealStep() {
      if (lit) reveal(code, lit);
      const current = [...graph.querySelectorAll(".is-current")];
      if (current.length) reveal(graph, ...current);
      return current[0];
    }

    // ... and the page to the viewer, the boxes fitted first to the controls' new height.
    function follow() {
      fit();
      keepInView(figure, bar, [code, graph], [lit, revealStep()]);
    }

    function goTo(i, newMode = mode) {
      if (newMode !== mode) {
        mode = newMode;
        figure.querySelectorAll("[data-mode]").forEach(b => b.setAttribute("aria-pressed", b.dataset.mode === mode));
      }
      index = Math.min(Math.max(i, 0), list().length - 1);
      show();
      follow();
    }

    const go = step => goTo(index + step);

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
      button.addEventListener("click", () => { stop(); goTo(0, button.dataset.mode); });
    });
    figure.querySelectorAll("[data-step]").forEach(el => el.addEventListener("click", () => {
      stop();
      goTo(+el.dataset.step, "backward");
    }));
    figure.addEventListener("keydown", event => {
      const step = {ArrowLeft: -1, ArrowRight: 1}[event.key];
      if (!step || event.target.matches("input, select") || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      event.preventDefault();
      stop();
      go(step);
    });

    // The graph's nodes: marked, and each one a button that goes to its step (in Forward mode, to
    // the line that added it).
    nodes.forEach((node, i) => {
      if (!node) return;
      node.classList.add(...data.marks[i].map(m => "is-" + m));
      node.setAttribute("tabindex", "0");
      node.setAttribute("role", "button");
      const ran = stepOf.has(i) ? `step ${stepOf.get(i) + 1}` : "not run";
      node.setAttribute("aria-label", `${data.names[i]}, ${[ran, ...data.marks[i]].join(", ")}`);
      const visit = () => {
        stop();
        if (mode === "forward") goTo(data.forward.findIndex(f => f.nodes.includes(i)));
        else if (stepOf.has(i)) goTo(stepOf.get(i));
      };
      node.addEventListener("click", visit);
      node.addEventListener("keydown", event => {
        if (event.key !== "Enter" && event.key !== " ") return;
        event.preventDefault();
        visit();
      });
    });

    // Zoom: the graph is drawn with its labels 14 px tall (Graphviz's points as pixels); zooming
    // out goes as far as the whole graph in its box, zooming in to four times.
    let [width, height] = svg ? [+svg.getAttribute("width"), +svg.getAttribute("height")] : [0, 0];
    function setZoom(z) {
      const fit = Math.min(1, graph.clientWidth / width, (graph.clientHeight || height) / height);
      zoom = Math.min(Math.max(z, fit), 4);
      svg.style.width = `${width * zoom}px`;
      svg.style.height = `${height * zoom}px`;
      revealStep();
    }
    figure.querySelectorAll("[data-zoom]").forEach(button => button.addEventListener("click", () => {
      setZoom({in: zoom * ZOOM, out: zoom / ZOOM, reset: 1}[button.dataset.zoom]);
    }));
    $(".snippet-steps__tools").hidden = !svg;

    // A module's view, from a click on its box, the choice of module, the buttons up, or a step.
    function showView(k) {
      if (k === view) return;
      views.forEach((x, j) => x.setAttribute("display", j === k ? "inline" : "none"));
      view = k;
      [width, height] = [+views[k].dataset.width, +views[k].dataset.height];
      allModules.hidden = up.hidden = k === 0;
      modules.value = k;
      setZoom(zoom);
    }
    // Open view k, and go to the first step (or line, going forward) that it holds, unless the
    // step on show is one.
    function expand(k) {
      stop();
      showView(k);
      const holds = item => (mode === "backward" ? [item.node] : item.nodes).some(i => drawnIn(i, k));
      const inside = list().findIndex(holds);
      if (inside >= 0 && !holds(list()[index])) goTo(inside);
      else show(inside < 0);
    }
    views.forEach(v => v.querySelectorAll("[data-module]").forEach(g => {
      g.setAttribute("tabindex", "0");
      g.setAttribute("role", "button");
      g.setAttribute("aria-label", `Module ${g.querySelector("text").textContent}: show what it holds`);
      g.addEventListener("click", () => expand(+g.dataset.module));
      g.addEventListener("keydown", event => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          expand(+g.dataset.module);
        }
      });
    }));
    if (views.length) {  // view.py draws the choice of module and the two buttons with them
      modules.addEventListener("change", () => expand(+modules.value));
      allModules.addEventListener("click", () => expand(0));
      up.addEventListener("click", () => expand(Math.max(data.views[view], 0)));
    }

    // Find a node or a parameter by name (or module path): Enter goes to the next one's step.
    const search = $(".snippet-steps__search"), found = $(".snippet-steps__found");
    search.addEventListener("keydown", event => {
      if (event.key !== "Enter") return;
      event.preventDefault();
      const query = search.value.trim().toLowerCase();
      const matches = data.steps.map((s, i) => [s.node, i]).filter(([n]) => query &&
        (data.names[n].toLowerCase().includes(query) || (data.paths[n] || "").toLowerCase().includes(query)));
      if (!matches.length) {
        // A parameter this backward pass does not reach is in no step: say so.
        const unreached = query ? data.missing.filter(name => name.toLowerCase().includes(query)) : [];
        found.textContent = unreached.length ? `${unreached.join(", ")}: no gradient, not reached`
          : query ? "none found" : "";
        return;
      }
      const at = matches.findIndex(([, i]) => i > index && mode === "backward");
      const [n, i] = matches[at >= 0 ? at : 0];
      found.textContent = `${(at >= 0 ? at : 0) + 1} of ${matches.length}`;
      stop();
      if (views.length) showView(data.place[n]);
      goTo(i, "backward");
    });

    // Drag the graph to pan it, as its scroll bars do.
    graph.addEventListener("pointerdown", event => {
      if (event.button !== 0 || event.pointerType !== "mouse") return;
      let x = event.clientX, y = event.clientY, moved = false;
      const move = e => {
        if (!moved && Math.hypot(e.clientX - x, e.clientY - y) < 4) return;
        moved = true;
        graph.scrollBy(x - e.clientX, y - e.clientY);
        x = e.clientX;
        y = e.clientY;
      };
      const up = () => {
        removeEventListener("pointermove", move);
        if (moved) addEventListener("click", e => e.stopPropagation(), {capture: true, once: true});  // a drag is no click
      };
      addEventListener("pointermove", move);
      addEventListener("pointerup", up, {once: true});
    });

    // The table of gradient norms: a column's header sorts by it, again the other way.
    const norms = $(".snippet-steps__norms");
    norms.querySelectorAll("th").forEach((th, column) => {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = th.textContent;
      th.replaceChildren(button);
      button.addEventListener("click", () => {
        const down = th.getAttribute("aria-sort") !== "descending";
        norms.querySelectorAll("th").forEach(h => h.removeAttribute("aria-sort"));
        th.setAttribute("aria-sort", down ? "descending" : "ascending");
        const key = tr => {
          const td = tr.children[column];
          return td.dataset.value !== undefined ? +td.dataset.value : column === 0 ? +td.textContent : td.textContent;
        };
        const rows = [...norms.tBodies[0].rows].sort((a, b) => {
          const [p, q] = [key(a), key(b)];
          return (p < q ? -1 : p > q ? 1 : 0) * (down ? -1 : 1);
        });
        norms.tBodies[0].append(...rows);
      });
    });

    // The controls stick to the top of the screen (below the site's header); the code and the
    // graph fit below them: steps.css reads --steps-top and --steps-free, in the viewer's CSS
    // pixels (a notebook's output is zoomed: steps.css).
    function fit() {
      const [, top, bottom] = scroller(figure), height = bar.getBoundingClientRect().height;
      const scale = height / bar.offsetHeight || 1;
      const header = document.querySelector(".md-header");
      figure.style.setProperty("--steps-top", `${header ? header.offsetHeight : 0}px`);
      figure.style.setProperty("--steps-free", `${Math.max(0, (bottom - top - height) / scale - 16)}px`);
      figure.classList.toggle("is-scrollable", graph.scrollWidth > graph.clientWidth + 1
                                               || graph.scrollHeight > graph.clientHeight + 1);
    }
    const resized = new ResizeObserver(fit);
    resized.observe(bar);
    resized.observe(graph);
    addEventListener("resize", fit);
    // The first step's node and line shown once the viewer comes on screen: not on start, where
    // reading the layout would make the browser lay the page out early.
    new IntersectionObserver((entries, observer) => {
      if (!entries.some(e => e.isIntersecting)) return;
      observer.disconnect();
      revealStep();
    }).observe(graph);
    bar.hidden = $(".snippet-steps__stage").hidden = false;
    $(".snippet-steps__table").open = false;
    show();
  }

  // On the site, every viewer of the page; in a notebook, where each output carries this script,
  // the viewer of the output that runs it.
  const host = document.currentScript && document.currentScript.closest(".snippet-steps-host");
  (host || document).querySelectorAll("figure.snippet-steps").forEach(start);
})();
