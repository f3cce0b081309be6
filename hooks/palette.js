(() => {
  const form = document.currentScript.previousElementSibling;
  const inputs = [...form.querySelectorAll("input[name=__palette]")];
  const keys = ["media", "scheme", "primary", "accent"];
  const [themeColor, colorScheme] = ["theme-color", "color-scheme"].map(name =>
    document.head.appendChild(Object.assign(document.createElement("meta"), {name})));
  const saved = __md_get("__palette");
  let current;

  function choose(index) {
    const color = Object.fromEntries(keys.map(key => [key, inputs[index].getAttribute(`data-md-color-${key}`)]));
    keys.forEach(key => document.body.setAttribute(`data-md-color-${key}`, color[key]));
    inputs.forEach((input, i) => { input.checked = i === index; input.nextElementSibling.hidden = i !== index; });
    __md_set("__palette", {index, color});
    const style = getComputedStyle(form.closest("header"));
    themeColor.content = "#" + style.backgroundColor.match(/\d+/g).slice(0, 3).map(c => (+c).toString(16).padStart(2, "0")).join("");
    colorScheme.content = style.colorScheme;
    current = index;
  }

  inputs.forEach((input, index) => input.addEventListener("change", () => choose(index)));
  form.addEventListener("keydown", event => {
    if (event.key !== "Enter") return;
    const next = inputs[(current + 1) % inputs.length];
    next.click();
    next.focus();
  });
  choose(saved ? Math.max(0, Math.min(saved.index, inputs.length - 1))
               : Math.max(0, inputs.findIndex(input => matchMedia(input.getAttribute("data-md-color-media")).matches)));
})();
