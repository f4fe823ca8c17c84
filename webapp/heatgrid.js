// The Leaks heatmap: a table of coloured cells, built from data with textContent and title only
// (names from data are never read as HTML). Called again with each new data: it rebuilds.
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
  table.onclick = (event) => {
    const td = event.target.closest("td[data-i]");
    if (td) setTriggerValue("cell", [rows[+td.dataset.i][1], cols[+td.dataset.j][1]]);
  };
  let box = parentElement.querySelector("div.heatgrid");
  if (!box) {
    box = parentElement.appendChild(document.createElement("div"));
    box.className = "heatgrid";
  }
  box.replaceChildren(table);
}
