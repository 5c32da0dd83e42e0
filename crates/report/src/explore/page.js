"use strict";
// converge explore: everything the page does, on the data embedded at generation time.
(function () {
  const errors = [];
  function noteError(msg) {
    errors.push(String(msg));
    const box = document.getElementById("errors");
    if (box) { box.hidden = false; box.textContent = "script error: " + errors.join("; "); }
    document.body.dataset.errors = String(errors.length);
  }
  window.addEventListener("error", (e) => noteError(e.message));
  const D = JSON.parse(document.getElementById("data").textContent);
  let cur = 0;        // function index
  let hier = 0;       // hierarchy index of the simulation panel
  let zoom = 1;
  const $ = (s, r) => (r || document).querySelector(s);
  const $$ = (s, r) => Array.from((r || document).querySelectorAll(s));
  const F = () => D.functions[cur];
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  const svg = () => document.getElementById("f" + cur + "-svg");
  const blk = (b) => document.getElementById("f" + cur + "b" + b);
  const src = () => document.getElementById("src" + cur);
  const detail = (html) => { $("#detail").innerHTML = html; $("#detail").scrollTop = 0; };

  function clearMarks() {
    $$(".hl, .wit, .sel, .colhl, .colsel").forEach((e) => e.classList.remove("hl", "wit", "sel", "colhl", "colsel"));
  }
  function markBlock(b, cls) { const e = blk(b); if (e) e.classList.add(cls); }
  function markEdge(u, v, cls) {
    $$('[data-e="' + u + "-" + v + '"]', svg()).forEach((e) => e.classList.add(cls));
  }
  function markPath(p, cls, closed) {
    for (let i = 0; i + 1 < p.length; i++) markEdge(p[i], p[i + 1], cls);
    if (closed && p.length > 0) markEdge(p[p.length - 1], p[0], cls);
    p.forEach((b) => markBlock(b, cls));
  }
  function markLine(loc) {
    const m = /:(\d+):\d+$/.exec(loc || "");
    if (!m) return null;
    const ln = document.getElementById("L" + m[1]);
    if (ln && src().contains(ln)) ln.classList.add("hl");
    return ln;
  }
  function showBlockOnCfg(b) {
    const e = blk(b);
    if (!e) return;
    const box = $("#cfgbox"), r = e.getBoundingClientRect(), br = box.getBoundingClientRect();
    if (r.top < br.top || r.bottom > br.bottom || r.left < br.left || r.right > br.right) {
      box.scrollLeft += r.left - br.left - br.width / 2 + r.width / 2;
      box.scrollTop += r.top - br.top - br.height / 2 + r.height / 2;
    }
  }
  function showLine(el) {
    if (!el) return;
    const box = $("#srcbox"), r = el.getBoundingClientRect(), br = box.getBoundingClientRect();
    if (r.top < br.top || r.bottom > br.bottom) box.scrollTop += r.top - br.top - br.height / 3;
  }
  function setHash(h) { try { history.replaceState(null, "", "#" + h); } catch (e) { /* file: URLs may refuse */ } }
  function valLink(v) {
    const x = F().vals[v];
    return '<a data-go="' + v + '" class="mono">' + esc(x[0]) + "</a>";
  }
  function run() { const s = F().sim; return s && s.runs ? s.runs[hier] : null; }

  // The columns of the table that hold instances of block b.
  function markColumns(b, cls) {
    const r = run();
    if (!r || !r.cols) return;
    r.cols.forEach((cb, c) => { if (cb === b) $$('#simtable td[data-c="' + c + '"]').forEach((td) => td.classList.add(cls)); });
  }

  function simNotes(v) {
    const s = F().sim;
    if (!s || !s.runs) return "";
    let h = "";
    const r = run();
    if (r && r.verdicts && r.verdicts[v] !== undefined) {
      h += "<p><b>Simulation</b> (" + s.threads + (s.threads === 1 ? " thread" : " threads") + ", hierarchy " + esc(r.desc) + "): " + esc(r.verdicts[v]) + ".</p>";
    }
    const groups = s.runs.map((r, k) => [k, r.groups && r.groups[v]]).filter((x) => x[1]);
    if (groups.length) {
      h += "<p><b>Communicating sets</b> (the threads of each converged dynamic instance, which the simulator evaluates together):</p><ul>";
      groups.forEach(([k, gs]) => {
        h += "<li>" + esc(s.runs[k].desc) + ": " + gs.map((g) => "<span class=\"mono\">{" + g.join(", ") + "}</span>").join(" ") + "</li>";
      });
      h += "</ul>";
    }
    return h;
  }

  function showValue(v) {
    clearMarks();
    const f = F(), x = f.vals[v];
    if (!x) return;
    const sp = $('[data-v="' + v + '"]', src());
    if (sp) sp.classList.add("sel");
    let h = "<p>" + valLink(v) + ' <span class="loc">' + esc(x[1]) + "</span> ";
    if (x[2]) {
      h += '<span class="badge d">divergent</span></p>';
      const chain = [];
      const seen = {};
      let at = v;
      while (at >= 0 && f.why[at] && !seen[at] && chain.length < 500) {
        seen[at] = 1;
        chain.push([at, f.why[at]]);
        at = f.why[at][2];
      }
      h += "<p>Chain of " + chain.length + " step" + (chain.length === 1 ? "" : "s") + " back to a divergence source (what <code>converge explain</code> prints):</p><ol>";
      chain.forEach(([w, st]) => {
        const y = f.vals[w];
        h += '<li><span class="kind">' + esc(st[0]) + "</span> " + valLink(w) + ' <span class="loc">' + esc(y[1]) + "</span><br>" + esc(st[1]) + "</li>";
        st[3].forEach((b) => markBlock(b, "hl"));
        st[4].forEach((p) => markPath(p, "hl", false));
        if (st[5] >= 0) { const c = document.getElementById("f" + cur + "c" + st[5]); if (c) c.classList.add("hl"); }
        markLine(y[1]);
      });
      h += "</ol>";
    } else {
      h += '<span class="badge u">uniform</span></p>';
      const u = f.uni[v];
      if (u) {
        h += "<ul>" + u.map((t) => "<li>" + esc(t) + "</li>").join("") + "</ul>";
      } else {
        h += '<p class="note">The analysis found no divergent operand and no divergent branch it depends on' +
          (f.uniTruncated ? " (detailed reasons are listed for the first values only in a function this big)." : ".") + "</p>";
      }
      markLine(x[1]);
    }
    h += simNotes(v);
    detail(h);
    if (x[3] >= 0) { markBlock(x[3], "sel"); markColumns(x[3], "colhl"); showBlockOnCfg(x[3]); }
    setHash("f=" + encodeURIComponent(f.name) + "&v=" + encodeURIComponent(x[0]));
  }

  function showBlock(b) {
    clearMarks();
    const f = F();
    const name = f.blocks[b];
    markBlock(b, "sel");
    markColumns(b, "colhl");
    const lbl = $('.lbl[data-b="' + b + '"]', src());
    if (lbl) { lbl.parentElement.classList.add("hl"); showLine(lbl.parentElement); }
    let h = "<p>Block <b class=\"mono\">" + esc(name) + "</b></p>";
    const r = run();
    if (r && r.cols) {
      const cols = [];
      r.cols.forEach((cb, c) => { if (cb === b) cols.push(c + 1); });
      h += cols.length ? "<p>Its dynamic instances fill column" + (cols.length > 1 ? "s " : " ") + cols.join(", ") + " of the table below; instances in one column are converged.</p>"
        : "<p>No thread executed it in the simulation.</p>";
    }
    detail(h);
    showBlockOnCfg(b);
  }

  function showDiag(k) {
    clearMarks();
    const d = F().diags[k];
    if (!d) return;
    markPath(d.w, "wit", true);
    const ln = document.getElementById("L" + d.line);
    if (ln) { ln.classList.add("hl"); showLine(ln); }
    let h = "<p><b>Token diagnostic</b> <code>" + esc(d.rule) + "</code>" + (d.w.length ? " — witness closed path drawn on the CFG" : "") + "</p><pre>" + esc(d.text) + "</pre>";
    if (d.w.length) h += "<p>Witness: " + d.w.map((b) => '<span class="mono">' + esc(F().blocks[b]) + "</span>").join(" → ") + " → " + esc(F().blocks[d.w[0]]) + "</p>";
    detail(h);
    if (d.w.length) showBlockOnCfg(d.w[0]);
    setHash("f=" + encodeURIComponent(F().name) + "&d=" + k);
  }

  function showColumn(c) {
    clearMarks();
    const r = run();
    if (!r) return;
    $$('#simtable td[data-c="' + c + '"]').forEach((td) => td.classList.add("colsel"));
    const b = r.cols[c];
    if (b >= 0) { markBlock(b, "sel"); showBlockOnCfg(b); }
    const who = r.rows.filter((row) => row.cells[c]).map((row) => "<span class=\"mono\">" + esc(row.cells[c]) + "</span> (thread " + row.tid + ")");
    detail("<p>Column " + (c + 1) + ": " + (who.length > 1 ? "the dynamic instances " + who.join(", ") + " are <b>converged</b> (one column)." : "the dynamic instance " + who.join("") + " is converged with no other thread's.") + "</p>");
  }

  function renderSim() {
    const s = F().sim, box = $("#simbody");
    if (!s) { box.innerHTML = '<p class="note">No simulation.</p>'; return; }
    if (s.error) { box.innerHTML = '<p class="err">' + esc(s.error) + "</p>"; return; }
    const sel = $("#hier");
    sel.innerHTML = s.runs.map((r, k) => "<option value=\"" + k + "\">" + esc(r.desc.length > 110 ? r.desc.slice(0, 109) + "…" : r.desc) + "</option>").join("");
    if (hier >= s.runs.length) hier = 0;
    sel.value = String(hier);
    $("#hierwrap").hidden = s.runs.length < 2;
    const r = s.runs[hier];
    let h = "<p class=\"note\">" + s.threads + (s.threads === 1 ? " thread" : " threads") + ", target " + esc(s.target) + (s.args.length ? ", arguments " + esc(s.args.join(", ")) : "") +
      ", " + (r.controlled ? "controlled convergence (tokens)" : "maximal convergence") + ". One row per thread; dynamic instances in one column are converged (as in the tables of “Convergence And Uniformity”). " +
      (s.runs.length > 1 ? "The CFG is irreducible: choose a cycle hierarchy above (" + s.runs.length + " shown" + (s.allHierarchies ? ", all there are" : "") + ")." : "") + (s.cut ? " " + esc(s.cut) + "." : "") + "</p>";
    if (r.error) { box.innerHTML = h + '<p class="err">' + esc(r.error) + "</p>"; return; }
    const ncol = r.cols.length;
    h += '<table id="simtable"><tr><th>thread</th>';
    for (let c = 0; c < ncol; c++) h += "<th>" + (c + 1) + "</th>";
    h += "<th>end</th></tr>";
    const count = new Array(ncol).fill(0);
    r.rows.forEach((row) => row.cells.forEach((x, c) => { if (x) count[c]++; }));
    r.rows.forEach((row) => {
      h += "<tr><th>" + row.tid + "</th>";
      row.cells.forEach((x, c) => {
        h += x ? '<td class="c' + (count[c] < 2 ? " one" : "") + '" data-c="' + c + '">' + esc(x) + "</td>" : "<td></td>";
      });
      h += '<td class="st">' + esc(row.status) + "</td></tr>";
    });
    h += "</table>";
    if (r.columns > ncol) h += '<p class="note">' + (r.columns - ncol) + " more columns not shown (" + ncol + " kept).</p>";
    (r.notes || []).forEach((n) => { h += '<p class="note">note: ' + esc(n) + "</p>"; });
    box.innerHTML = h;
  }

  function selectFunction(k) {
    cur = k; hier = 0;
    $$(".fn").forEach((e) => e.classList.toggle("on", e.dataset.fi === String(k)));
    $("#fnsel").value = String(k);
    const f = F();
    $("#fninfo").textContent = f.summary;
    renderSim();
    fit();
    detail($("#helptpl").innerHTML);
  }

  function setZoom(z) {
    zoom = Math.max(0.05, Math.min(4, z));
    const s = svg();
    if (!s) return;
    s.setAttribute("width", String(Math.round(s.dataset.w * zoom)));
    s.setAttribute("height", String(Math.round(s.dataset.h * zoom)));
  }
  function fit() {
    const s = svg();
    if (!s) return;
    const box = $("#cfgbox");
    setZoom(Math.min(1, Math.max(0.25, (box.clientWidth - 8) / s.dataset.w)));
  }

  function onClick(e) {
    const t = e.target.closest("[data-v],[data-b],[data-d],[data-go],td[data-c]");
    if (!t) return;
    if (t.dataset.go !== undefined) { const v = +t.dataset.go; showValue(v); const sp = $('[data-v="' + v + '"]', src()); if (sp) showLine(sp); return; }
    if (t.dataset.v !== undefined) { showValue(+t.dataset.v); return; }
    if (t.dataset.d !== undefined) { showDiag(+t.dataset.d.split(" ")[0]); return; }
    if (t.dataset.c !== undefined && t.tagName === "TD") { showColumn(+t.dataset.c); return; }
    if (t.dataset.b !== undefined) { showBlock(+t.dataset.b); }
  }

  function applyHash() {
    const q = new URLSearchParams(location.hash.replace(/^#/, ""));
    const fname = q.get("f");
    if (fname !== null) {
      const k = D.functions.findIndex((f) => f.name === fname);
      if (k >= 0 && k !== cur) selectFunction(k);
    }
    if (q.get("h") !== null) { hier = Math.max(0, +q.get("h") || 0); renderSim(); }
    const v = q.get("v");
    if (v !== null) {
      const k = F().vals.findIndex((x) => x[0] === v);
      const sp = k >= 0 ? $('[data-v="' + k + '"]', src()) : null;
      if (sp) { sp.click(); showLine(sp); }
    }
    const d = q.get("d");
    if (d !== null) { const mk = $('[data-d]', src()); if (mk) { showDiag(+d); } }
  }

  function init() {
    const sel = $("#fnsel");
    sel.innerHTML = D.functions.map((f, k) => "<option value=\"" + k + "\">@" + esc(f.name) + "</option>").join("");
    sel.addEventListener("change", () => selectFunction(+sel.value));
    $("#fnwrap").hidden = D.functions.length < 2;
    $("#hier").addEventListener("change", () => { hier = +$("#hier").value; renderSim(); });
    $("#zin").addEventListener("click", () => setZoom(zoom * 1.25));
    $("#zout").addEventListener("click", () => setZoom(zoom / 1.25));
    $("#zfit").addEventListener("click", fit);
    $("#z1").addEventListener("click", () => setZoom(1));
    document.addEventListener("click", onClick);
    window.addEventListener("hashchange", applyHash);
    if (D.functions.length === 0) { detail("<p>The module defines no function.</p>"); }
    else { selectFunction(0); applyHash(); }
    // Time from navigation to a laid-out page (reading offsetHeight forces style and layout).
    void document.body.offsetHeight;
    document.body.dataset.readyMs = String(Math.round(performance.now()));
    document.body.dataset.ready = "1";
  }
  try { init(); } catch (e) { noteError(e && e.stack ? e.stack : e); }
})();
