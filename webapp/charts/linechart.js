// Growth's line charts: an SVG built from data with textContent and attributes only (names from
// data are never read as HTML), redrawn with each new data and when its box changes width. Its
// SVG and PNG files are made from the chart as drawn (save.js, put first, has saveButtons, el and
// textWidth).
const SVG = "http://www.w3.org/2000/svg";
const MARGIN = { left: 52, right: 18, top: 14, bottom: 46 };

// Round ticks from 0 up to at least `top`: steps of 1, 2, 2.5 or 5 times a power of ten.
function yTicks(top) {
  if (!(top > 0)) return [0, 1];
  const raw = top / 6;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw);
  const ticks = [];
  for (let t = 0; t < top + step / 2 && ticks.length < 12; t += step) ticks.push(+t.toFixed(6));
  if (ticks[ticks.length - 1] < top) ticks.push(+(ticks[ticks.length - 1] + step).toFixed(6));
  return ticks;
}

function tipText(data, series, point) {
  const [colour, dash, , label] = series;
  // a line named at its end is named by its run, which the colour's name already gives
  const named = data.endLabels ? "" : label;
  const lines = [named, data.colours[colour][0], data.dashes[dash][0]].filter((t) => t);
  lines.push(`${data.x.tip}: ${Number.isInteger(point[0]) ? point[0] : point[0].toFixed(2)}`);
  if (data.fixed) lines.push(`${data.fixed[0]}: ${data.fixed[1]}`);
  lines.push(`${data.y.tip}: ${point[1].toFixed(2)}`);
  if (data.extra && point[2] !== null) {
    lines.push(`${data.extra}: ${Number.isInteger(point[2]) ? point[2] : point[2].toFixed(3)}`);
  }
  return lines.join("\n");
}

function overlap(a, b) {
  const w = Math.min(a[2], b[2]) - Math.max(a[0], b[0]);
  const h = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
  return w > 0 && h > 0 ? w * h : 0;
}

// Does the segment cross the box? (Liang-Barsky clipping)
function crosses(seg, box) {
  const [x1, y1, x2, y2] = seg;
  const [dx, dy] = [x2 - x1, y2 - y1];
  let [t0, t1] = [0, 1];
  for (const [p, q] of [[-dx, x1 - box[0]], [dx, box[2] - x1], [-dy, y1 - box[1]], [dy, box[3] - y1]]) {
    if (p === 0) { if (q < 0) return false; continue; }
    const t = q / p;
    if (p < 0) t0 = Math.max(t0, t); else t1 = Math.min(t1, t);
    if (t0 > t1) return false;
  }
  return true;
}

// Each point's label beside it where it hides no other label, point or line: right, left, above,
// below, then the corners; where every place hides something, the place that hides least.
// Points come in series order, so the first series' labels get the first choice.
function placeLabels(labels, points, segments, plot, measure) {
  const placed = [];
  const boxes = [];
  for (const [x, y, text] of labels) {
    const w = measure(text);
    const h = 12;
    const spots = [
      [x + 9, y + 4, "start"], [x - 9, y + 4, "end"], [x, y - 10, "middle"], [x, y + 18, "middle"],
      [x + 7, y - 9, "start"], [x + 7, y + 16, "start"], [x - 7, y - 9, "end"], [x - 7, y + 16, "end"],
      // farther off, joined to the point by a thin line
      [x, y + 34, "middle", true], [x, y - 26, "middle", true],
      [x + 24, y + 28, "start", true], [x - 24, y + 28, "end", true],
      [x + 24, y - 20, "start", true], [x - 24, y - 20, "end", true],
    ];
    let best = null;
    for (const [tx, ty, anchor, far] of spots) {
      const left = anchor === "start" ? tx : anchor === "end" ? tx - w : tx - w / 2;
      const box = [left - 1, ty - h + 2, left + w + 1, ty + 3];
      let cost = boxes.reduce((sum, b) => sum + overlap(box, b), 0) + (far ? 25 : 0);
      for (const [px, py] of points) {
        if (px === x && py === y) continue;
        cost += overlap(box, [px - 4, py - 4, px + 4, py + 4]);
        // a label close to another point reads as that point's: keep a margin around it
        cost += overlap(box, [px - 14, py - 14, px + 14, py + 14]) / 2;
      }
      cost += 40 * segments.filter((seg) => crosses(seg, box)).length;
      const outside = Math.max(0, plot[0] - box[0]) + Math.max(0, box[2] - plot[2])
        + Math.max(0, plot[1] - box[1]) + Math.max(0, box[3] - plot[3]);
      cost += outside * h * 4;
      if (far) {  // its thin line to the point crossing a series' line counts too
        const span = [Math.min(x, tx), Math.min(y, ty - 4), Math.max(x, tx), Math.max(y, ty - 4)];
        cost += 40 * segments.filter((seg) => crosses(seg, span)).length;
      }
      if (best === null || cost < best[0]) best = [cost, tx, ty, anchor, box, far];
      if (cost === 0) break;
    }
    boxes.push(best[4]);
    placed.push([best[1], best[2], text, best[3], best[5] ? [x, y] : null]);
  }
  return placed;
}

function draw(box, data) {
  const width = Math.max(320, box.clientWidth || 700);
  const measure = textWidth(box, 11);
  // lines named at their ends: room on the right for the longest name
  const names = data.endLabels ? data.series.map((s) => s[3]).filter((t) => t) : [];
  const right = MARGIN.right + (names.length ? 10 + Math.max(...names.map(measure)) : 0);
  const plotW = width - MARGIN.left - right;
  const plotH = data.height;
  const [x0, x1] = data.x.domain;
  const values = data.series.flatMap((s) => s[2].map((p) => p[1]));
  const ticksY = yTicks(data.y.top || Math.max(0, ...values, ...data.marks.map((m) => m[1])));
  const yTop = ticksY[ticksY.length - 1];
  const X = (v) => MARGIN.left + ((v - x0) / (x1 - x0 || 1)) * plotW;
  const Y = (v) => MARGIN.top + plotH - (v / yTop) * plotH;

  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("width", width);
  svg.setAttribute("height", plotH + MARGIN.top + MARGIN.bottom);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `${data.y.title} against ${data.x.title}`);
  const grid = el(svg, "g", { class: "grid" });
  const axes = el(svg, "g", { class: "axis" });
  for (const t of ticksY) {
    el(grid, "line", { x1: MARGIN.left, x2: MARGIN.left + plotW, y1: Y(t), y2: Y(t) });
    el(axes, "text", { x: MARGIN.left - 8, y: Y(t) + 4, "text-anchor": "end" }, String(t));
  }
  for (const t of data.x.ticks) {
    el(grid, "line", { x1: X(t), x2: X(t), y1: MARGIN.top, y2: MARGIN.top + plotH });
    el(axes, "text", { x: X(t), y: MARGIN.top + plotH + 17, "text-anchor": "middle" }, String(t));
  }
  el(axes, "text", { class: "title", x: MARGIN.left + plotW / 2, y: MARGIN.top + plotH + 40,
    "text-anchor": "middle" }, data.x.title);
  el(axes, "text", { class: "title", "text-anchor": "middle",
    transform: `translate(14 ${MARGIN.top + plotH / 2}) rotate(-90)` }, data.y.title);

  const lines = el(svg, "g", { class: "lines" });
  const hits = [];
  const labels = [];
  const segments = [];
  for (const series of data.series) {
    const [colour, dash, points] = series;
    const stroke = data.colours[colour][1];
    const d = points.map((p, i) => `${i ? "L" : "M"}${X(p[0]).toFixed(1)},${Y(p[1]).toFixed(1)}`);
    el(lines, "path", { d: d.join(""), stroke, "stroke-dasharray": data.dashes[dash][1].join(" "),
      fill: "none", "stroke-width": 2 });
    for (let i = 1; i < points.length; i++) {
      segments.push([X(points[i - 1][0]), Y(points[i - 1][1]), X(points[i][0]), Y(points[i][1])]);
    }
    // a series of one point has no line to show it: a larger dot
    const r = points.length === 1 ? 5 : 2.6;
    points.forEach((p, i) => {
      el(lines, "circle", { cx: X(p[0]), cy: Y(p[1]), r, fill: stroke });
      // a line named at its end (data.endLabels), or every point of a scatter
      const named = series[3] && (!data.endLabels || i === points.length - 1);
      if (named) labels.push([X(p[0]), Y(p[1]), series[3]]);
      hits.push([X(p[0]), Y(p[1]), tipText(data, series, p)]);
    });
  }
  const plot = [MARGIN.left, MARGIN.top, MARGIN.left + plotW + right, MARGIN.top + plotH];
  for (const [x, y, text, anchor, from] of placeLabels(labels, hits, segments, plot, measure)) {
    if (from) {  // a label set farther off: a thin line from its point to its nearer edge
      const y2 = y > from[1] ? y - 12 : y + 3;
      el(lines, "line", { class: "leader", x1: from[0], y1: from[1], x2: x, y2 });
    }
    el(lines, "text", { class: "label", x, y, "text-anchor": anchor }, text);
  }
  const marks = el(svg, "g", { class: "marks" });
  for (const [x, y, label, align, dx, dy] of data.marks) {
    const [cx, cy] = [X(x), Y(y)];
    el(marks, "path", { d: `M${cx},${cy - 7}L${cx + 7},${cy}L${cx},${cy + 7}L${cx - 7},${cy}Z` });
    // inside the plot: a point on the x axis keeps its label above the axis's numbers
    const ty = Math.max(MARGIN.top + 10, Math.min(cy + dy + 4, MARGIN.top + plotH - 4));
    el(marks, "text", { x: cx + dx, y: ty,
      "text-anchor": align === "right" ? "end" : "start" }, label);
    hits.push([cx, cy, label]);
  }
  // one transparent target per point, larger than the dot, for the tooltip
  const targets = el(svg, "g", { class: "targets" });
  for (const [cx, cy, tip] of hits) {
    el(targets, "circle", { cx, cy, r: 7, "aria-label": tip }).dataset.tip = tip;
  }
  return svg;
}

function legend(data) {
  const div = document.createElement("div");
  div.className = "legend";
  const group = (title, entries, swatch) => {
    if (!entries.length) return;
    const g = div.appendChild(document.createElement("div"));
    g.appendChild(document.createElement("div")).textContent = title;
    for (const [name, value] of entries) {
      const row = g.appendChild(document.createElement("div"));
      row.appendChild(swatch(value));
      row.appendChild(document.createElement("span")).textContent = name;
    }
  };
  // a colour named "" (say, a front's line) is not in the legend: its dash is
  group(data.colourTitle, data.colours.filter(([name]) => name), (colour) => {
    const dot = document.createElement("span");
    dot.className = "dot";
    dot.style.background = colour;
    return dot;
  });
  const named = data.dashes.filter(([name]) => name); // a dash named "" is not in the legend
  if (named.length) {
    group(data.dashTitle, named, (dash) => {
      const svg = document.createElementNS(SVG, "svg");
      svg.setAttribute("width", 30);
      svg.setAttribute("height", 10);
      svg.setAttribute("aria-hidden", "true");
      el(svg, "line", { x1: 1, x2: 29, y1: 5, y2: 5, "stroke-dasharray": dash.join(" ") });
      return svg;
    });
  }
  return div;
}

export default function ({ data, parentElement }) {
  let box = parentElement.querySelector("div.linechart");
  if (!box) {
    box = parentElement.appendChild(document.createElement("div"));
    box.className = "linechart";
    const tip = document.createElement("div");
    tip.className = "tip";
    box.tipBox = tip;
    box.addEventListener("mouseover", (event) => {
      const text = event.target.dataset && event.target.dataset.tip;
      if (!text) return;
      tip.textContent = text;
      tip.style.display = "block";
      const r = box.getBoundingClientRect();
      const x = event.clientX - r.left + 14;
      tip.style.left = `${Math.min(x, box.clientWidth - tip.offsetWidth - 4)}px`;
      // below the pointer, or above it where the window ends first
      const below = event.clientY + 14 + tip.offsetHeight <= window.innerHeight;
      const y = below ? event.clientY + 14 : event.clientY - 14 - tip.offsetHeight;
      tip.style.top = `${y - r.top}px`;
    });
    box.addEventListener("mouseout", (event) => {
      if (event.target.dataset && event.target.dataset.tip) tip.style.display = "none";
    });
    new ResizeObserver(() => {
      if (box.data && box.clientWidth !== box.drawnWidth) render(box);
    }).observe(box);
  }
  box.data = data;
  render(box);
}

function render(box) {
  box.drawnWidth = box.clientWidth;
  box.tipBox.style.display = "none";
  const parts = [draw(box, box.data), legend(box.data)];
  if (box.data.download) parts.push(saveButtons(box, standalone, box.data.download));
  box.replaceChildren(...parts, box.tipBox);
}

// The chart as a file is the chart on screen: its SVG as drawn, the legend drawn in SVG under
// it, the page's colours and font written in (a file has no page around it).
function standalone(box) {
  const svg = box.querySelector("svg[role=img]").cloneNode(true);
  svg.querySelector("g.targets").remove();
  const { ink, paper, font } = pageStyle(box);
  const top = +svg.getAttribute("height");
  const height = top + legendSvg(svg, box.data, top, textWidth(box, 12));
  return asFile(svg, +svg.getAttribute("width"), height, paper, `
    text { font-family: ${font}; font-size: 11px; fill: ${ink}; }
    .grid line { stroke: ${ink}; stroke-opacity: 0.12; }
    .axis text { fill-opacity: 0.75; }
    .axis text.title { font-size: 12px; fill-opacity: 0.9; }
    .marks path { fill: ${ink}; }
    .lines circle { stroke: ${ink}; stroke-opacity: 0.4; stroke-width: 0.75; }
    .marks text, .lines text.label { paint-order: stroke; stroke: ${paper}; stroke-width: 3px;
      stroke-linejoin: round; }
    .marks text, .legend text { font-size: 12px; }
    .legend text.title { fill-opacity: 0.75; }
    .lines line.leader { stroke: ${ink}; stroke-opacity: 0.45; stroke-width: 1; }
    .legend line { stroke: ${ink}; stroke-width: 2; }`);
}

// The legend of legend() in SVG, from `top` down: a column per group; returns its height.
function legendSvg(svg, data, top, measure) {
  const g = el(svg, "g", { class: "legend" });
  const groups = [[data.colourTitle, data.colours.filter(([name]) => name), true],
    [data.dashTitle, data.dashes.filter(([name]) => name), false]];
  let [x, tallest] = [MARGIN.left, 0];
  for (const [title, entries, dots] of groups) {
    if (!entries.length) continue;
    let [y, wide] = [top + 20, measure(title || "")];
    if (title) {
      el(g, "text", { class: "title", x, y }, title);
      y += 22;
    }
    for (const [name, value] of entries) {
      if (dots) el(g, "circle", { cx: x + 6, cy: y - 4, r: 6, fill: value });
      else el(g, "line", { x1: x + 1, x2: x + 29, y1: y - 4, y2: y - 4,
        "stroke-dasharray": value.join(" ") });
      const at = x + (dots ? 18 : 36);
      el(g, "text", { x: at, y }, name);
      wide = Math.max(wide, at - x + measure(name));
      y += 22;
    }
    x += wide + 48;
    tallest = Math.max(tallest, y - top);
  }
  return tallest;
}
