// A chart's SVG and PNG files, made in the browser from the chart as drawn, so the file is the
// chart on screen. Put before each chart's own script (the Python side joins them). The chart
// is drawn in the page itself (a shadow root, no iframe), so a link with `download` saves.

// An SVG element `name` under `parent`, with attributes and a text (set as text, never as HTML).
function el(parent, name, attrs = {}, text) {
  const node = parent.appendChild(document.createElementNS("http://www.w3.org/2000/svg", name));
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

// The width of a text in the chart's font, for placing or cutting texts before they are drawn.
function textWidth(box, size) {
  const ctx = document.createElement("canvas").getContext("2d");
  ctx.font = `${size}px ${getComputedStyle(box).fontFamily || "sans-serif"}`;
  return (text) => ctx.measureText(text).width;
}

// Two small buttons under a chart; `makeSvg(box)` gives the chart as a standalone <svg>.
function saveButtons(box, makeSvg, name) {
  const bar = document.createElement("div");
  bar.className = "save";
  for (const [kind, save] of [["SVG", saveSvg], ["PNG", savePng]]) {
    const button = bar.appendChild(document.createElement("button"));
    button.type = "button";
    button.textContent = kind;
    button.title = `Download this chart as ${kind}`;
    button.setAttribute("aria-label", `Download this chart as ${kind}`);
    button.onclick = () => save(makeSvg(box), name, bar);
  }
  return bar;
}

// The page's text colour, background and font, which a file has no page to take them from.
function pageStyle(box) {
  const style = getComputedStyle(box);
  let paper = "";
  for (let node = box; node && !paper; node = node.parentElement || node.getRootNode().host) {
    const colour = getComputedStyle(node).backgroundColor;
    if (colour && colour !== "transparent" && !/^rgba\(.*,\s*0\)$/.test(colour)) paper = colour;
  }
  return { ink: style.color || "#000", paper: paper || "#fff", font: style.fontFamily || "sans-serif" };
}

// `svg` as a file of its own: its size, its namespace, `css` and a background of `paper`.
function asFile(svg, width, height, paper, css) {
  const ns = "http://www.w3.org/2000/svg";
  svg.setAttribute("xmlns", ns);
  svg.setAttribute("width", width);
  svg.setAttribute("height", height);
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const back = document.createElementNS(ns, "rect");
  for (const [k, v] of [["width", "100%"], ["height", "100%"], ["fill", paper]]) back.setAttribute(k, v);
  svg.insertBefore(back, svg.firstChild);
  svg.insertBefore(document.createElementNS(ns, "style"), back).textContent = css;
  return svg;
}

function svgBlob(svg) {
  return new Blob([new XMLSerializer().serializeToString(svg)], { type: "image/svg+xml" });
}

// Offer a blob as a file: a link with `download`, clicked.
function offer(blob, file, near) {
  const link = near.appendChild(document.createElement("a"));
  link.href = URL.createObjectURL(blob);
  link.download = file;
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
}

function saveSvg(svg, name, near) {
  offer(svgBlob(svg), `${name}.svg`, near);
}

// The SVG drawn at twice its size (sharp on a high-density screen or in print).
function savePng(svg, name, near) {
  const [width, height] = [+svg.getAttribute("width"), +svg.getAttribute("height")];
  const url = URL.createObjectURL(svgBlob(svg));
  const image = new Image();
  image.onload = () => {
    const canvas = document.createElement("canvas");
    canvas.width = 2 * width;
    canvas.height = 2 * height;
    const ctx = canvas.getContext("2d");
    ctx.scale(2, 2);
    ctx.drawImage(image, 0, 0, width, height);
    URL.revokeObjectURL(url);
    canvas.toBlob((png) => offer(png, `${name}.png`, near), "image/png");
  };
  image.src = url;
}
