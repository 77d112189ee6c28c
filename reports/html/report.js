// tfscan report: sortable matrices and the paged node table. No network, no
// libraries; every string from the report goes through textContent.
(function () {
  "use strict";

  // Sortable tables: click a header to sort by text, number or coverage rank.
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var heads = table.querySelectorAll("thead th");
    heads.forEach(function (th, col) {
      th.addEventListener("click", function () {
        var asc = !th.classList.contains("asc");
        heads.forEach(function (h) { h.classList.remove("asc", "desc"); });
        th.classList.add(asc ? "asc" : "desc");
        var kind = th.getAttribute("data-sort");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var key = function (tr) {
          var td = tr.cells[col];
          if (kind === "num") {
            var v = td.getAttribute("data-value");
            return Number(v !== null ? v : td.textContent);
          }
          if (kind === "rank") { return td.getAttribute("data-rank"); }
          return td.textContent;
        };
        rows.sort(function (a, b) {
          var ka = key(a), kb = key(b);
          var c = ka < kb ? -1 : ka > kb ? 1 : 0;
          if (c === 0) { c = a.cells[0].textContent < b.cells[0].textContent ? -1 : 1; }
          return asc ? c : -c;
        });
        rows.forEach(function (tr) { body.appendChild(tr); });
      });
    });
  });

  // Node table: data is embedded as JSON; only one page of rows is in the DOM.
  var PAGE = 100;
  var data = JSON.parse(document.getElementById("tfscan-nodes").textContent);
  var $ = function (id) { return document.getElementById(id); };
  var modelSel = $("node-model"), targetSel = $("node-target"), reasonSel = $("node-reason");
  var phaseSel = $("node-phase"), changeSel = $("node-change");
  var search = $("node-search"), reachable = $("node-reachable");
  var tbody = $("node-table").tBodies[0];
  var page = 0, matches = [];

  function option(sel, value, text) {
    var o = document.createElement("option");
    o.value = value; o.textContent = text; sel.appendChild(o);
  }
  function clear(sel, keepFirst) {
    while (sel.options.length > (keepFirst ? 1 : 0)) { sel.remove(sel.options.length - 1); }
  }
  data.models.forEach(function (m, i) { option(modelSel, String(i), m.model); });

  function model() { return data.models[Number(modelSel.value)]; }

  function fillTargets() {
    clear(targetSel, false);
    clear(reasonSel, true);
    clear(phaseSel, true);
    clear(changeSel, true);
    var m = model();
    if (!m) { return; }
    m.targets.forEach(function (t, i) { option(targetSel, String(i), t); });
    m.reasons.forEach(function (r, i) { option(reasonSel, String(i), r); });
    m.phases.forEach(function (p, i) { option(phaseSel, String(i), p); });
    m.changes.forEach(function (c, i) { option(changeSel, String(i), c.replace(/_/g, " ")); });
  }

  // Row layout: [path, op, dtypes, reachable, phase, reason × targets,
  // device × targets, change × targets].
  var REASON = 5;

  function filter() {
    matches = [];
    var m = model();
    if (!m) { render(); return; }
    var t = Number(targetSel.value) || 0, nt = m.targets.length;
    var q = search.value.trim().toLowerCase();
    var want = reasonSel.value === "" ? -1 : Number(reasonSel.value);
    var phase = phaseSel.value === "" ? -1 : Number(phaseSel.value);
    var change = changeSel.value === "" ? -1 : Number(changeSel.value);
    var onlyReach = reachable.checked;
    for (var i = 0; i < m.rows.length; i++) {
      var r = m.rows[i];
      if (want >= 0 && r[REASON + t] !== want) { continue; }
      if (phase >= 0 && r[4] !== phase) { continue; }
      if (change >= 0 && r[REASON + 2 * nt + t] !== change) { continue; }
      if (onlyReach && !r[3]) { continue; }
      if (q && r[0].toLowerCase().indexOf(q) < 0 && m.ops[r[1]].toLowerCase().indexOf(q) < 0) { continue; }
      matches.push(i);
    }
    page = 0;
    render();
  }

  function cell(tr, text, cls) {
    var td = document.createElement("td");
    td.textContent = text;
    if (cls) { td.className = cls; }
    tr.appendChild(td);
  }

  function category(reason) {
    var code = reason.split(" ")[0];
    if (code === "covered") { return "covered"; }
    if (code === "covered_default") { return "default"; }
    if (code === "unknown_op") { return "unknown"; }
    return "fallback";
  }

  function render() {
    while (tbody.firstChild) { tbody.removeChild(tbody.firstChild); }
    var m = model();
    var pages = Math.max(1, Math.ceil(matches.length / PAGE));
    if (m) {
      var t = Number(targetSel.value) || 0, nt = m.targets.length;
      var end = Math.min(matches.length, (page + 1) * PAGE);
      for (var k = page * PAGE; k < end; k++) {
        var r = m.rows[matches[k]];
        var tr = document.createElement("tr");
        var reason = r[REASON + t] >= 0 ? m.reasons[r[REASON + t]] : "";
        var dev = r[REASON + nt + t] >= 0 ? m.devices[r[REASON + nt + t]] : "";
        var ch = r[REASON + 2 * nt + t] >= 0 ? m.changes[r[REASON + 2 * nt + t]] : "";
        cell(tr, r[0]);
        cell(tr, m.ops[r[1]]);
        cell(tr, r[2]);
        cell(tr, r[4] >= 0 ? m.phases[r[4]] : "");
        cell(tr, dev);
        cell(tr, reason, reason ? "cell-" + category(reason) : "");
        cell(tr, ch.replace(/_/g, " "), ch === "new_fallback" ? "cell-fallback" : "");
        tbody.appendChild(tr);
      }
    }
    $("node-count").textContent = matches.length + " of " + (m ? m.rows.length : 0) + " nodes";
    $("node-page").textContent = "page " + (page + 1) + " / " + pages;
    $("node-prev").disabled = page === 0;
    $("node-next").disabled = page + 1 >= pages;
  }

  modelSel.addEventListener("change", function () { fillTargets(); filter(); });
  targetSel.addEventListener("change", filter);
  reasonSel.addEventListener("change", filter);
  phaseSel.addEventListener("change", filter);
  changeSel.addEventListener("change", filter);
  reachable.addEventListener("change", filter);
  var timer = 0;
  search.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(filter, 120); });
  $("node-prev").addEventListener("click", function () { if (page > 0) { page--; render(); } });
  $("node-next").addEventListener("click", function () { if ((page + 1) * PAGE < matches.length) { page++; render(); } });
  fillTargets();
  filter();
})();
