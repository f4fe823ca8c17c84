// The Leaks heatmap: a table of coloured cells, built from data with textContent and title only
// (names from data are never read as HTML). Called again with each new data: it rebuilds.
// By keyboard: Tab reaches one cell (the chosen one, else the first), the arrow keys move to the
// next cell in that direction, Enter or Space chooses it as a click does. Its SVG and PNG files
// are the same grid drawn in SVG from the same data, with its legend (saveButtons: save.js).
const SVG = "http://www.w3.org/2000/svg";
const NAMES = 250; // the row names' column, as in heatgrid.css
const HEAD = 210; // the column names' height, as in heatgrid.css
const ROW = 18; // a row: 17 px and its border
export default function ({ data, parentElement, setTriggerValue }) {
  const { rows, cols, cells, colours, labels, picked, blank } = data;
  const table = document.createElement("table");
  // never narrower than 13 px a column (a narrow window scrolls it rather than squeeze it)
  table.style.minWidth = `${250 + 13 * cols.length}px`;
  const widths = document.createElement("colgroup");
  widths.appendChild(document.createElement("col")).className = "names";
  table.appendChild(widths);
  const head = table.createTHead().insertRow();
  head.appendChild(document.createElement("th"));
  for (const [short, full] of cols) {
    const th = head.appendChild(document.createElement("th"));
    th.className = "column";
    th.title = full;
    th.appendChild(document.createElement("span")).textContent = short;
  }
  const body = table.createTBody();
  const grid = rows.map(([short, full]) => {
    const tr = body.insertRow();
    const th = tr.appendChild(document.createElement("th"));
    th.className = "row";
    th.title = full;
    th.textContent = short;
    return cols.map(() => {
      const td = tr.insertCell();
      td.style.background = blank;
      return td;
    });
  });
  for (const [i, j, colour, label, leaks, samples, profiles] of cells) {
    const td = grid[i][j];
    const share = samples ? ((100 * leaks) / samples).toFixed(1) : "-";
    td.style.background = colours[colour];
    td.dataset.i = i;
    td.dataset.j = j;
    td.title =
      `attribute: ${rows[i][1]}\ntask: ${cols[j][1]}\nlabel: ${labels[label]}\n` +
      `leaks: ${leaks} of ${samples} samples (${share}%)\nprofiles: ${profiles}`;
    if (picked && picked[0] === rows[i][1] && picked[1] === cols[j][1]) td.className = "picked";
  }
  const live = [...table.querySelectorAll("td[data-i]")];
  const focusOn = (td) => {
    for (const other of live) other.tabIndex = other === td ? 0 : -1;
    td.focus();
  };
  const choose = (td) =>
    setTriggerValue("cell", [rows[+td.dataset.i][1], cols[+td.dataset.j][1]]);
  table.onclick = (event) => {
    const td = event.target.closest("td[data-i]");
    if (td) choose(td);
  };
  const steps = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
  table.onkeydown = (event) => {
    const td = event.target.closest("td[data-i]");
    if (!td) return;
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      choose(td);
      return;
    }
    const step = steps[event.key];
    if (!step) return;
    event.preventDefault();
    let [i, j] = [+td.dataset.i + step[0], +td.dataset.j + step[1]];
    while (grid[i] && grid[i][j] && !grid[i][j].dataset.i) [i, j] = [i + step[0], j + step[1]];
    if (grid[i] && grid[i][j]) focusOn(grid[i][j]);
  };
  for (const td of live) td.tabIndex = -1;
  const first = table.querySelector("td.picked") || live[0];
  if (first) first.tabIndex = 0;

  let box = parentElement.querySelector("div.heatgrid");
  if (!box) {
    box = parentElement.appendChild(document.createElement("div"));
    box.className = "heatgrid";
  }
  // a choice by keyboard reruns the page and rebuilds the table: the focus stays on that cell
  const active = parentElement.getRootNode().activeElement;
  const had = active && box.contains(active) && active.dataset.i !== undefined;
  const where = had && [box.names[0][+active.dataset.i][1], box.names[1][+active.dataset.j][1]];
  box.data = data;
  box.replaceChildren(table);
  if (data.download) box.appendChild(saveButtons(box, standalone, data.download));
  box.names = [rows, cols];
  if (had) {
    const i = rows.findIndex((r) => r[1] === where[0]);
    const j = cols.findIndex((c) => c[1] === where[1]);
    if (i >= 0 && j >= 0 && grid[i][j].dataset.i !== undefined) focusOn(grid[i][j]);
  }
}

// A name cut to `room` pixels with an ellipsis, as the table cuts it; its tooltip gives it whole.
function fitted(parent, attrs, short, full, room, measure) {
  let shown = short;
  if (measure(short) > room) {
    while (shown && measure(`${shown}\u2026`) > room) shown = shown.slice(0, -1);
    shown = `${shown}\u2026`;
  }
  const node = el(parent, "text", attrs, shown);
  el(node, "title", {}, full);
}

// The grid as on screen, as wide as the table is drawn: names, cells, then the legend under it.
function standalone(box) {
  const { rows, cols, cells, colours, blank, legend } = box.data;
  const table = box.querySelector("table");
  const width = Math.max(NAMES + 13 * cols.length, table ? table.getBoundingClientRect().width : 0);
  const step = (width - NAMES) / Math.max(1, cols.length);
  const measure = textWidth(box, 11);
  const svg = document.createElementNS(SVG, "svg");
  const names = el(svg, "g", { class: "names" });
  cols.forEach(([short, full], j) => {
    const [x, y] = [NAMES + (j + 0.5) * step + 4, HEAD - 4];
    const node = { transform: `translate(${x} ${y}) rotate(-90)` };
    fitted(names, node, short, full, HEAD - 4, measure);
  });
  rows.forEach(([short, full], i) => {
    const at = { x: NAMES - 6, y: HEAD + i * ROW + ROW / 2 + 4, "text-anchor": "end" };
    fitted(names, at, short, full, NAMES - 6, measure);
  });
  const fills = rows.map(() => cols.map(() => blank));
  for (const [i, j, colour] of cells) fills[i][j] = colours[colour];
  const grid = el(svg, "g", { class: "cells" });
  fills.forEach((line, i) => line.forEach((fill, j) => {
    el(grid, "rect", { x: NAMES + j * step, y: HEAD + i * ROW, width: step, height: ROW, fill });
  }));
  const top = HEAD + rows.length * ROW;
  const [tall, wide] = legend ? legendSvg(svg, legend, blank, top, textWidth(box, 12)) : [8, 0];
  const { ink, paper, font } = pageStyle(box);
  return asFile(svg, Math.ceil(Math.max(width, wide)), top + tall, paper, `
    text { font-family: ${font}; font-size: 11px; fill: ${ink}; }
    .cells rect { stroke: #e6e6e6; stroke-width: 1; }
    .legend text { font-size: 12px; }
    .legend text.tick { font-size: 11px; }
    .legend rect { stroke: #ccc; stroke-width: 1; }`);
}

// The legend in one line from `top`: its title, the colour ramp with its ticks in percent or a
// swatch per name, then the swatch of a place with no cell; returns its height and right end.
function legendSvg(svg, legend, blank, top, measure) {
  const g = el(svg, "g", { class: "legend" });
  const y = top + 24;
  let x = 4;
  el(g, "text", { x, y }, legend.title);
  x += measure(legend.title) + 8;
  if (legend.ramp.length) {
    const ramp = el(el(svg, "defs"), "linearGradient", { id: "heatgrid-ramp" });
    for (const [stop, colour] of legend.ramp) {
      el(ramp, "stop", { offset: `${100 * stop}%`, "stop-color": colour });
    }
    el(g, "rect", { x, y: y - 10, width: 240, height: 12, fill: "url(#heatgrid-ramp)" });
    for (const tick of legend.ticks) {
      el(g, "text", { class: "tick", x: x + 2.4 * tick, y: y + 15, "text-anchor": "middle" },
        `${tick}%`);
    }
    x += 240 + 4;
  }
  for (const [name, colour] of [...legend.swatches, [legend.blank, blank]]) {
    x += 12;
    el(g, "rect", { x, y: y - 10, width: 12, height: 12, fill: colour });
    el(g, "text", { x: x + 16, y }, name);
    x += 16 + measure(name);
  }
  return [24 + (legend.ticks.length ? 24 : 10), x + 4];
}
