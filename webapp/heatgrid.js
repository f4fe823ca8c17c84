// The Leaks heatmap: a table of coloured cells, built from data with textContent and title only
// (names from data are never read as HTML). Called again with each new data: it rebuilds.
// By keyboard: Tab reaches one cell (the chosen one, else the first), the arrow keys move to the
// next cell in that direction, Enter or Space chooses it as a click does.
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
  box.replaceChildren(table);
  box.names = [rows, cols];
  if (had) {
    const i = rows.findIndex((r) => r[1] === where[0]);
    const j = cols.findIndex((c) => c[1] === where[1]);
    if (i >= 0 && j >= 0 && grid[i][j].dataset.i !== undefined) focusOn(grid[i][j]);
  }
}
