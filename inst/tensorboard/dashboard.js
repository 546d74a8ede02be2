// The scalar dashboard of cppestimators' native tensorboard(): fetches the
// scalars the server has read (only those after its cursor on each poll),
// and draws one SVG chart per tag, grouped by the tag's prefix, with a
// series per run. No library: plain DOM and SVG.
(function () {
  "use strict";

  var SVG = "http://www.w3.org/2000/svg";
  var W = 460, H = 290, M = { left: 62, right: 16, top: 12, bottom: 40 };
  var PALETTE = ["#ff7043", "#0077bb", "#009988", "#ee3377", "#33bbee", "#cc3311",
                 "#aa66cc", "#bbbb00", "#555555", "#66aa55"];

  var state = {
    cursor: 0, polls: 0, interval: 5,
    series: {},        // "run\u0000tag" -> {run, tag, step: [], value: [], wall: []}
    runs: [],          // sorted by name
    hidden: {},        // run -> true when unchecked
    tags: {},          // tag -> true
    runStart: {},      // run -> first wall time
    colors: {},        // run -> colour, in the order runs appeared (kept across reloads)
    smoothing: 0.6, xType: "step", logY: false
  };

  function key(run, tag) { return run + "\u0000" + tag; }

  function num(v) {
    if (typeof v === "number") return v;
    if (v === null) return NaN;
    return Number(v);  // "NaN", "Infinity", "-Infinity"
  }

  // ---- data -------------------------------------------------------------

  function clearData() {
    state.series = {}; state.runs = []; state.tags = {}; state.runStart = {};
  }

  // Runs are kept sorted by name, as TensorBoard lists them.
  function addRun(run) {
    if (state.runs.indexOf(run) >= 0) return;
    state.runs.push(run);
    state.runs.sort();
  }

  // Colours go to runs in the order they appear (those appearing together
  // in name order), and stay theirs.
  function assignColors() {
    state.runs.forEach(function (run) {
      if (!(run in state.colors)) state.colors[run] = PALETTE[Object.keys(state.colors).length % PALETTE.length];
    });
  }

  // Appends the columns of a /data/scalars answer; returns the tags that
  // got points.
  function append(cols) {
    var changed = {};
    var n = cols.step.length;
    for (var i = 0; i < n; i++) {
      var run = cols.run[i], tag = cols.tag[i], k = key(run, tag);
      var s = state.series[k];
      if (!s) {
        s = state.series[k] = { run: run, tag: tag, step: [], value: [], wall: [] };
        addRun(run);
        state.tags[tag] = true;
      }
      var wall = num(cols.wall_time[i]);
      s.step.push(num(cols.step[i]));
      s.value.push(num(cols.value[i]));
      s.wall.push(wall);
      if (!(run in state.runStart) || wall < state.runStart[run]) state.runStart[run] = wall;
      changed[tag] = true;
    }
    return changed;
  }

  function getJSON(url) {
    function network(e) { e.network = true; throw e; }
    return fetch(url, { cache: "no-store" }).then(function (r) {
      if (!r.ok) network(new Error(url + ": HTTP " + r.status));
      return r.json();
    }, network);
  }

  function setStatus(text, kind) {
    var el = document.getElementById("status");
    var points = 0;
    for (var k in state.series) points += state.series[k].step.length;
    el.textContent = text;
    el.setAttribute("data-polls", String(state.polls));
    el.setAttribute("data-cursor", String(state.cursor));
    el.setAttribute("data-points", String(points));
    if (state.polls === 1 && !el.hasAttribute("data-first-points")) el.setAttribute("data-first-points", String(points));
    el.setAttribute("data-state", kind);
  }

  function poll() {
    getJSON("data/scalars?since=" + state.cursor).then(function (d) {
      if (d.reset) clearData();
      var changed = append(d.scalars);
      (d.runs || []).forEach(addRun);
      state.cursor = d.cursor;
      state.polls += 1;
      render(d.reset ? null : changed);
      if (state.hover) hoverChart(state.hover);
      var when = new Date().toLocaleTimeString();
      setStatus("Updated " + when + " \u00b7 poll " + state.polls + " \u00b7 " + state.cursor +
                " scalars \u00b7 every " + state.interval + " s", "ok");
    }).catch(function (e) {
      if (!e.network) {  // not the server's failure: a bug of the page; show it
        document.getElementById("status").setAttribute("data-error", String(e.stack || e));
        setStatus("Error: " + e.message, "error");
        return;
      }
      setStatus("Cannot reach the server (" + e.message + "); retrying", "error");
    }).then(function () {
      window.setTimeout(poll, state.interval * 1000 + 100);
    });
  }

  // ---- smoothing (TensorBoard's debiased exponential moving average) ----

  function smooth(values, w) {
    var out = new Array(values.length), last = 0, n = 0;
    for (var i = 0; i < values.length; i++) {
      var v = values[i];
      if (!isFinite(v)) { out[i] = v; continue; }
      last = last * w + (1 - w) * v;
      n += 1;
      var debias = w === 1 ? 1 : 1 - Math.pow(w, n);
      out[i] = last / debias;
    }
    return out;
  }

  // ---- scales and ticks -------------------------------------------------

  function niceStep(span, count) {
    var raw = span / Math.max(count, 1);
    var p = Math.pow(10, Math.floor(Math.log10(raw)));
    var f = raw / p;
    return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * p;
  }

  function ticks(lo, hi, count) {
    if (!(hi > lo)) return [lo];
    var st = niceStep(hi - lo, count), out = [], first = Math.ceil(lo / st);
    for (var i = 0; i < 50; i++) {  // by index: t += st could stand still
      var t = (first + i) * st;
      if (t > hi + st * 1e-9) break;
      out.push(Math.abs(t) < st * 1e-9 ? 0 : t);
    }
    return out;
  }

  function timeTicks(lo, hi, count) {
    var steps = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];
    var raw = (hi - lo) / Math.max(count, 1), st = steps[steps.length - 1];
    for (var i = 0; i < steps.length; i++) if (steps[i] >= raw) { st = steps[i]; break; }
    var out = [], first = Math.ceil(lo / st);
    for (var i = 0; i < 50 && (first + i) * st <= hi; i++) out.push((first + i) * st);
    return out.length ? out : [lo];
  }

  function fmt(v) {
    if (!isFinite(v)) return String(v);
    var a = Math.abs(v);
    if (a !== 0 && (a >= 1e5 || a < 1e-3)) return v.toExponential(2);
    return String(Number(v.toPrecision(4)));
  }

  function fmtTime(secs) {
    var d = new Date(secs * 1000);
    return d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  }

  // A duration given in hours, as TensorBoard shows relative time.
  function fmtHours(h) {
    var exact = h * 3600;
    if (Math.abs(exact) < 10 && exact !== Math.round(exact)) return Number(exact.toPrecision(3)) + "s";
    var s = Math.round(exact);
    if (s < 60) return s + "s";
    if (s < 3600) return Math.floor(s / 60) + "m " + (s % 60) + "s";
    return Math.floor(s / 3600) + "h " + Math.floor((s % 3600) / 60) + "m";
  }

  function xOf(s, i) {
    if (state.xType === "step") return s.step[i];
    if (state.xType === "relative") return (s.wall[i] - state.runStart[s.run]) / 3600;
    return s.wall[i];
  }

  function runColor(run) { return state.colors[run] || PALETTE[0]; }

  // ---- drawing ----------------------------------------------------------

  function el(name, attrs, parent) {
    var e = document.createElementNS(SVG, name);
    for (var a in attrs) e.setAttribute(a, attrs[a]);
    if (parent) parent.appendChild(e);
    return e;
  }

  function groupOf(tag) {
    var i = tag.indexOf("/");
    return i > 0 ? tag.slice(0, i) : tag;
  }

  function chartId(tag) { return "chart-" + encodeURIComponent(tag).replace(/[^A-Za-z0-9_-]/g, "_"); }

  // The visible series of a tag, with their x values and smoothed values.
  function seriesOf(tag) {
    var out = [];
    state.runs.forEach(function (run) {
      var s = state.series[key(run, tag)];
      if (!s || state.hidden[run]) return;
      var xs = new Array(s.step.length);
      for (var i = 0; i < xs.length; i++) xs[i] = xOf(s, i);
      out.push({ s: s, x: xs, smoothed: smooth(s.value, state.smoothing) });
    });
    return out;
  }

  function usable(v) { return isFinite(v) && (!state.logY || v > 0); }

  function drawChart(tag) {
    var box = document.getElementById(chartId(tag));
    if (!box) box = makeChartBox(tag);
    var svg = box.querySelector("svg");
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var series = seriesOf(tag);
    box.setAttribute("data-runs", String(series.length));
    var xlo = Infinity, xhi = -Infinity, ylo = Infinity, yhi = -Infinity;
    series.forEach(function (d) {
      for (var i = 0; i < d.x.length; i++) {
        if (isFinite(d.x[i])) { xlo = Math.min(xlo, d.x[i]); xhi = Math.max(xhi, d.x[i]); }
        [d.s.value[i], d.smoothed[i]].forEach(function (v) {
          if (usable(v)) { ylo = Math.min(ylo, v); yhi = Math.max(yhi, v); }
        });
      }
    });
    if (!isFinite(xlo)) { xlo = 0; xhi = 1; }
    if (xhi - xlo <= 1e-9 * Math.max(Math.abs(xlo), Math.abs(xhi))) { var xp = Math.abs(xlo) * 0.01 || 0.5; xlo -= xp; xhi += xp; }
    if (!isFinite(ylo)) { ylo = state.logY ? 1 : 0; yhi = state.logY ? 10 : 1; }
    var ty = state.logY ? function (v) { return Math.log10(v); } : function (v) { return v; };
    var flo = ty(ylo), fhi = ty(yhi);
    // a flat series (up to rounding, as its smoothed values) gets a range around it
    if (fhi - flo <= 1e-9 * Math.max(Math.abs(flo), Math.abs(fhi))) {
      var pad = Math.abs(flo) * 0.1 || 0.5; flo -= pad; fhi += pad;
    }
    else { var p = (fhi - flo) * 0.05; flo -= p; fhi += p; }
    var pw = W - M.left - M.right, ph = H - M.top - M.bottom;
    var sx = function (x) { return M.left + (x - xlo) / (xhi - xlo) * pw; };
    var sy = function (v) { return M.top + (1 - (ty(v) - flo) / (fhi - flo)) * ph; };

    // grid and axes
    var g = el("g", { "class": "axes" }, svg);
    var yt;
    if (state.logY) {
      yt = [];
      for (var e = Math.floor(flo); e <= Math.ceil(fhi); e++) if (e >= flo && e <= fhi) yt.push(Math.pow(10, e));
      // a decade or two: 1, 2 and 5 times the powers of ten; less: round
      // values, placed on the log scale
      if (yt.length < 3) {
        yt = [];
        for (var e2 = Math.floor(flo); e2 <= Math.ceil(fhi); e2++) {
          [1, 2, 5].forEach(function (m) {
            var t = m * Math.pow(10, e2), lt = Math.log10(t);
            if (lt >= flo && lt <= fhi) yt.push(t);
          });
        }
      }
      if (yt.length < 3) yt = ticks(Math.pow(10, flo), Math.pow(10, fhi), 4).filter(function (t) { return t > 0; });
    } else {
      yt = ticks(flo, fhi, 5);
    }
    yt.forEach(function (t) {
      var y = sy(t);
      el("line", { x1: M.left, x2: W - M.right, y1: y, y2: y, "class": "grid" }, g);
      var lab = el("text", { x: M.left - 6, y: y + 4, "class": "tick y" }, g);
      lab.textContent = fmt(t);
    });
    var xt = state.xType === "wall" ? timeTicks(xlo, xhi, 4) :
      state.xType === "relative" ? timeTicks(xlo * 3600, xhi * 3600, 4).map(function (t) { return t / 3600; }) :
      ticks(xlo, xhi, 5);
    xt.forEach(function (t) {
      var x = sx(t);
      el("line", { x1: x, x2: x, y1: M.top, y2: H - M.bottom, "class": "grid" }, g);
      var lab = el("text", { x: x, y: H - M.bottom + 16, "class": "tick x" }, g);
      lab.textContent = state.xType === "wall" ? fmtTime(t) : state.xType === "relative" ? fmtHours(t) : fmt(t);
    });
    el("rect", { x: M.left, y: M.top, width: pw, height: ph, "class": "frame" }, g);
    var xl = el("text", { x: M.left + pw / 2, y: H - 6, "class": "axis-label" }, g);
    xl.textContent = state.xType === "step" ? "step" : state.xType === "relative" ? "relative time" : "wall time";

    // series: the raw values faint behind the smoothed ones
    var clip = "clip-" + chartId(tag);
    var defs = el("defs", {}, svg);
    var cp = el("clipPath", { id: clip }, defs);
    el("rect", { x: M.left - 4, y: M.top - 4, width: pw + 8, height: ph + 8 }, cp);  // markers at the edges show whole
    var plot = el("g", { "clip-path": "url(#" + clip + ")" }, svg);
    series.forEach(function (d) {
      var color = runColor(d.s.run);
      var raw = pathOf(d.x, d.s.value, sx, sy), sm = pathOf(d.x, d.smoothed, sx, sy);
      el("path", { d: raw, stroke: color, "class": "raw", "data-run": d.s.run, "data-points": d.x.length }, plot);
      var lastSmoothed = d.smoothed.length ? d.smoothed[d.smoothed.length - 1] : NaN;
      el("path", { d: sm, stroke: color, "class": "smoothed", "data-run": d.s.run, "data-points": d.x.length,
                   "data-last-step": d.x.length ? d.s.step[d.x.length - 1] : "",
                   "data-last-smoothed": isFinite(lastSmoothed) ? lastSmoothed.toPrecision(7) : String(lastSmoothed) }, plot);
      // few points (an evaluation's) are drawn as markers too, to be seen
      if (d.x.length <= 30) {
        for (var i = 0; i < d.x.length; i++) {
          if (!isFinite(d.x[i]) || !usable(d.smoothed[i])) continue;
          el("circle", { cx: sx(d.x[i]).toFixed(1), cy: sy(d.smoothed[i]).toFixed(1), r: 3, fill: color,
                         "class": "marker", "data-run": d.s.run }, plot);
        }
      }
    });
    var hover = el("g", { "class": "hover" }, svg);
    var overlay = el("rect", { x: M.left, y: M.top, width: pw, height: ph, "class": "overlay" }, svg);
    overlay.addEventListener("mousemove", function (ev) { showTooltip(ev, svg, series, sx, sy, hover); });
    overlay.addEventListener("mouseleave", function () { hideTooltip(hover); });
    var pts = 0;
    series.forEach(function (d) { pts += d.x.length; });
    box.setAttribute("data-points", String(pts));
  }

  function pathOf(xs, ys, sx, sy) {
    var out = [], pen = false;
    for (var i = 0; i < xs.length; i++) {
      if (!isFinite(xs[i]) || !usable(ys[i])) { pen = false; continue; }
      out.push((pen ? "L" : "M") + sx(xs[i]).toFixed(1) + "," + sy(ys[i]).toFixed(1));
      pen = true;
    }
    // a single point still shows: a zero-length segment with round caps
    if (out.length === 1) out.push("l0.01,0");
    return out.join("");
  }

  function makeChartBox(tag) {
    var group = groupOf(tag);
    var gid = "group-" + encodeURIComponent(group).replace(/[^A-Za-z0-9_-]/g, "_");
    var sec = document.getElementById(gid);
    var main = document.getElementById("charts");
    if (!sec) {
      sec = document.createElement("section");
      sec.id = gid;
      sec.className = "group";
      sec.setAttribute("data-group", group);
      var h = document.createElement("h2");
      h.textContent = group;
      sec.appendChild(h);
      var grid = document.createElement("div");
      grid.className = "grid-charts";
      sec.appendChild(grid);
      var groups = Array.prototype.slice.call(main.querySelectorAll("section.group"));
      var after = groups.filter(function (s) { return s.getAttribute("data-group") > group; })[0];
      main.insertBefore(sec, after || null);
    }
    var box = document.createElement("div");
    box.className = "chart";
    box.id = chartId(tag);
    box.setAttribute("data-tag", tag);
    var title = document.createElement("div");
    title.className = "title";
    title.textContent = tag;
    box.appendChild(title);
    var svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    svg.setAttribute("width", String(W));
    svg.setAttribute("height", String(H));
    box.appendChild(svg);
    var grid2 = sec.querySelector(".grid-charts");
    var boxes = Array.prototype.slice.call(grid2.querySelectorAll(".chart"));
    var next = boxes.filter(function (b) { return b.getAttribute("data-tag") > tag; })[0];
    grid2.insertBefore(box, next || null);
    return box;
  }

  // ---- tooltip ----------------------------------------------------------

  function nearestIndex(xs, x) {
    var best = -1, dist = Infinity;
    for (var i = 0; i < xs.length; i++) {
      var dd = Math.abs(xs[i] - x);
      if (dd < dist) { dist = dd; best = i; }
    }
    return best;
  }

  function showTooltip(ev, svg, series, sx, sy, hover) {
    var rect = svg.getBoundingClientRect();
    var px = (ev.clientX - rect.left) * W / rect.width, py = (ev.clientY - rect.top) * H / rect.height;
    while (hover.firstChild) hover.removeChild(hover.firstChild);
    var rows = [];
    series.forEach(function (d) {
      // nearest point on screen of this series
      var best = -1, dist = Infinity;
      for (var i = 0; i < d.x.length; i++) {
        if (!usable(d.smoothed[i])) continue;
        var dx = sx(d.x[i]) - px, dy = sy(d.smoothed[i]) - py, dd = dx * dx * 4 + dy * dy;
        if (dd < dist) { dist = dd; best = i; }
      }
      if (best < 0) return;
      rows.push({ d: d, i: best, dist: dist });
    });
    rows.sort(function (a, b) { return a.dist - b.dist; });
    var tip = document.getElementById("tooltip");
    if (!rows.length) { hideTooltip(hover); return; }
    rows.forEach(function (r) {
      el("circle", { cx: sx(r.d.x[r.i]), cy: sy(r.d.smoothed[r.i]), r: 4, fill: runColor(r.d.s.run), "class": "dot" }, hover);
    });
    var html = "<table><tr><th></th><th>Run</th><th>Smoothed</th><th>Value</th><th>Step</th><th>Time</th><th>Relative</th></tr>";
    rows.forEach(function (r) {
      var s = r.d.s, i = r.i;
      html += "<tr" + (r === rows[0] ? " class=\"nearest\"" : "") + "><td><span class=\"swatch\" style=\"background:" +
        runColor(s.run) + "\"></span></td><td>" + escapeHtml(s.run) + "</td><td>" + fmt(r.d.smoothed[i]) +
        "</td><td>" + fmt(s.value[i]) + "</td><td>" + s.step[i] + "</td><td>" +
        new Date(s.wall[i] * 1000).toLocaleString() + "</td><td>" + fmtHours((s.wall[i] - state.runStart[s.run]) / 3600) + "</td></tr>";
    });
    tip.innerHTML = html + "</table>";
    tip.hidden = false;
    tip.setAttribute("data-run", rows[0].d.s.run);
    tip.setAttribute("data-step", String(rows[0].d.s.step[rows[0].i]));
    var left = ev.pageX + 16, top = ev.pageY + 16;
    if (left + tip.offsetWidth > window.scrollX + window.innerWidth) left = ev.pageX - tip.offsetWidth - 16;
    tip.style.left = left + "px";
    tip.style.top = top + "px";
  }

  // Moves the mouse to the middle of a tag's chart (the address's hover=).
  function hoverChart(tag) {
    var box = document.getElementById(chartId(tag));
    var overlay = box && box.querySelector("rect.overlay");
    if (!overlay) return;
    var r = overlay.getBoundingClientRect();
    overlay.dispatchEvent(new MouseEvent("mousemove", {
      clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, bubbles: true
    }));
  }

  function hideTooltip(hover) {
    while (hover.firstChild) hover.removeChild(hover.firstChild);
    document.getElementById("tooltip").hidden = true;
  }

  function escapeHtml(s) {
    return String(s).replace(/[&<>"]/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;" }[c];
    });
  }

  // ---- runs and controls ------------------------------------------------

  function renderRuns() {
    var box = document.getElementById("runs");
    var shown = Array.prototype.map.call(box.querySelectorAll("input[data-run]"), function (i) {
      return i.getAttribute("data-run");
    });
    if (shown.join("\u0000") === state.runs.join("\u0000")) return;
    while (box.firstChild) box.removeChild(box.firstChild);
    box.setAttribute("data-runs", String(state.runs.length));
    state.runs.forEach(function (run) {
      var lab = document.createElement("label");
      lab.className = "run";
      var cb = document.createElement("input");
      cb.type = "checkbox";
      cb.checked = !state.hidden[run];
      cb.setAttribute("data-checked", String(cb.checked));
      cb.setAttribute("data-run", run);
      cb.addEventListener("change", function () {
        if (cb.checked) delete state.hidden[run]; else state.hidden[run] = true;
        cb.setAttribute("data-checked", String(cb.checked));
        render(null);
      });
      var sw = document.createElement("span");
      sw.className = "swatch";
      sw.style.background = runColor(run);
      var name = document.createElement("span");
      name.textContent = run;
      lab.appendChild(cb); lab.appendChild(sw); lab.appendChild(name);
      box.appendChild(lab);
    });
  }

  // Redraws the charts of the tags in `changed` (all of them when null).
  function render(changed) {
    assignColors();
    document.body.setAttribute("data-x-type", state.xType);
    document.body.setAttribute("data-log-y", String(state.logY));
    document.body.setAttribute("data-smoothing", String(state.smoothing));
    renderRuns();
    var tags = Object.keys(state.tags).sort();
    document.getElementById("empty").hidden = tags.length > 0;
    tags.forEach(function (tag) { if (!changed || changed[tag]) drawChart(tag); });
    document.getElementById("charts").setAttribute("data-charts", String(tags.length));
  }

  function setupControls() {
    var slider = document.getElementById("smoothing"), box = document.getElementById("smoothing-value");
    function setSmoothing(v) {
      v = Math.min(0.99, Math.max(0, Number(v) || 0));
      state.smoothing = v; slider.value = v; box.value = v;
      render(null);
    }
    slider.addEventListener("input", function () { setSmoothing(slider.value); });
    box.addEventListener("change", function () { setSmoothing(box.value); });
    document.getElementById("log-scale").addEventListener("change", function (e) {
      state.logY = e.target.checked; render(null);
    });
    Array.prototype.forEach.call(document.querySelectorAll("input[name=x-type]"), function (r) {
      r.addEventListener("change", function () { if (r.checked) { state.xType = r.value; render(null); } });
    });
  }

  // Initial settings from the address: #smoothing=0.9&x=relative&log=1&hidden=eval,eval_test
  // (or the same as a query string), e.g. to open a shared view.
  function settingsFromURL() {
    var q = (window.location.hash.slice(1) || window.location.search.slice(1)).split("&");
    q.forEach(function (kv) {
      var p = kv.split("="), k = decodeURIComponent(p[0] || ""), v = decodeURIComponent(p[1] || "");
      if (k === "smoothing" && isFinite(Number(v)) && v !== "") state.smoothing = Math.min(0.99, Math.max(0, Number(v)));
      if (k === "x" && (v === "step" || v === "relative" || v === "wall")) state.xType = v;
      if (k === "log") state.logY = v === "1" || v === "true";
      if (k === "hidden") v.split(",").forEach(function (run) { if (run) state.hidden[run] = true; });
      if (k === "hover") state.hover = v;  // a tag: hover its chart's middle once drawn (for tests)
    });
    document.getElementById("smoothing").value = state.smoothing;
    document.getElementById("smoothing-value").value = state.smoothing;
    document.getElementById("log-scale").checked = state.logY;
    Array.prototype.forEach.call(document.querySelectorAll("input[name=x-type]"), function (r) {
      r.checked = r.value === state.xType;
    });
    document.body.setAttribute("data-x-type", state.xType);
    document.body.setAttribute("data-log-y", String(state.logY));
    document.body.setAttribute("data-smoothing", String(state.smoothing));
  }

  function start() {
    settingsFromURL();
    setupControls();
    getJSON("data/status").then(function (st) {
      if (st.reload_interval > 0) state.interval = st.reload_interval;
    }).catch(function () {}).then(poll);
  }

  window.cppestimatorsDashboard = { state: state, smooth: smooth, render: render };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
