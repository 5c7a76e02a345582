// hydrokern's live view: the run's status from server-sent events (/events), each new frame
// fetched when the last one is drawn (/frame: half floats and dry flags at the view's pixels),
// drawn with the colours the snapshot pictures use (core/src/output/png: colour stops, scale,
// hillshade, land), and the balance and gauges as plots. A slow page fetches fewer frames; the
// run never waits for it.
"use strict";

const hk = { viewer: null, setup: null, shade: null, layer: null, seq: 0, drawn: 0, t: 0, step: 0,
             state: "connecting", ended: false, fetching: false, balance: [], gauges: [] };
window.hk = hk;

const $ = (id) => document.getElementById(id);
const FPS = 10;
// Room around the map for the axes, and the colour bar's width with its labels.
const LEFT = 78, TOP = 8, BOTTOM = 48, BAR_GAP = 24, BAR_W = 22, BAR_LABELS = 90, BAR_TICKS = 5;
const MAX_MAP = { w: 900, h: 640 };

// IEEE half floats, all 65 536 of them, decoded once.
const HALF = (() => {
  const t = new Float32Array(65536);
  for (let u = 0; u < 65536; u++) {
    const s = u & 0x8000 ? -1 : 1, e = (u >> 10) & 31, m = u & 1023;
    t[u] = e === 0 ? s * m * 2 ** -24 : e === 31 ? (m ? NaN : s * Infinity) : s * (1 + m / 1024) * 2 ** (e - 15);
  }
  return t;
})();

// The colour at t in [0, 1] on piecewise-linear stops; NaN in the NaN colour.
function colour(stops, t, nan) {
  if (Number.isNaN(t)) return nan;
  const n = stops.length - 1, x = Math.min(Math.max(t, 0), 1) * n, k = Math.min(Math.floor(x), n - 1), f = x - k;
  return [0, 1, 2].map((c) => Math.round(stops[k][c] + (stops[k + 1][c] - stops[k][c]) * f));
}

function fraction(layer, v) {
  const [lo, hi] = layer.range, f = (v - lo) / (hi - lo);
  return layer.scale === "sqrt" ? Math.sqrt(Math.max(f, 0)) : f;
}

function valueAt(layer, f) {
  const [lo, hi] = layer.range;
  return layer.scale === "sqrt" ? lo + (hi - lo) * f * f : lo + (hi - lo) * f;
}

// A colour under the hillshade: lightened towards white or darkened towards black.
function shaded(c, shade, strength) {
  const f = Math.min(Math.max(1 + strength * (shade - 1), 0), 2);
  return c.map((v) => Math.min(Math.max(Math.round(f >= 1 ? v + (255 - v) * (f - 1) : v * f), 0), 255));
}

// Labels as the pictures write them: round numbers, kilometres past 100 km.
function ticks(lo, hi, room) {
  const span = hi - lo, want = Math.max(2, Math.floor(room / 80));
  const raw = span / want, mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => span / s <= want) || 10 * mag;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(+v.toPrecision(12));
  return { values: out, step };
}

function label(v, step) {
  const d = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  return v.toFixed(Math.min(d, 6));
}

function layout() {
  const s = hk.setup;
  const zoom = Math.max(1, Math.floor(Math.min(MAX_MAP.w / s.w, MAX_MAP.h / s.h)));
  return { zoom, W: s.w * zoom, H: s.h * zoom };
}

function drawAxes(layer) {
  const s = hk.setup, { W, H } = layout();
  const axes = $("axes"), field = $("field"), bar = $("bar");
  const width = LEFT + W + BAR_GAP + BAR_W + BAR_LABELS, height = TOP + H + BOTTOM;
  $("frame").style.width = width + "px";
  $("frame").style.height = height + "px";
  axes.width = width; axes.height = height;
  field.width = s.w; field.height = s.h;
  field.style.left = LEFT + "px"; field.style.top = TOP + "px";
  field.style.width = W + "px"; field.style.height = H + "px";
  bar.width = BAR_W + BAR_LABELS; bar.height = H + 2 * TOP;
  bar.style.left = LEFT + W + BAR_GAP + "px";
  const g = axes.getContext("2d");
  g.clearRect(0, 0, width, height);
  g.fillStyle = "#000"; g.strokeStyle = "#000"; g.font = "12px sans-serif";
  g.strokeRect(LEFT - 0.5, TOP - 0.5, W + 1, H + 1);
  const [x0, x1, y0, y1] = s.extent;
  const km = Math.max(Math.abs(x0), Math.abs(x1), Math.abs(y0), Math.abs(y1)) >= 1e5;
  const k = km ? 1e-3 : 1;
  const xt = ticks(x0 * k, x1 * k, W), yt = ticks(y0 * k, y1 * k, H);
  g.textAlign = "center"; g.textBaseline = "top";
  for (const v of xt.values) {
    const px = LEFT + ((v / k - x0) / (x1 - x0)) * W;
    g.fillRect(Math.round(px), TOP + H, 1, 5);
    g.fillText(label(v, xt.step), px, TOP + H + 7);
  }
  g.fillText(km ? "x [km]" : "x [m]", LEFT + W / 2, TOP + H + 26);
  g.textAlign = "right"; g.textBaseline = "middle";
  for (const v of yt.values) {
    const py = TOP + H - ((v / k - y0) / (y1 - y0)) * H;
    g.fillRect(LEFT - 6, Math.round(py), 5, 1);
    g.fillText(label(v, yt.step), LEFT - 8, py);
  }
  g.save(); g.translate(12, TOP + H / 2); g.rotate(-Math.PI / 2); g.textAlign = "center";
  g.fillText(km ? "y [km]" : "y [m]", 0, 0); g.restore();
  $("title").textContent = layer.title + (layer.scale === "sqrt" ? " — " + layer.label + " (√ scale)" : " — " + layer.label);
}

// The colour bar: the top row the colour map's top colour, ticks evenly spaced in colour.
function drawBar(layer, below, above) {
  const { H } = layout(), bar = $("bar"), g = bar.getContext("2d");
  g.clearRect(0, 0, bar.width, bar.height);
  for (let r = 0; r < H; r++) {
    const c = colour(layer.colormap, 1 - r / (H - 1), hk.setup.nan);
    g.fillStyle = `rgb(${c[0]},${c[1]},${c[2]})`;
    g.fillRect(0, TOP + r, BAR_W, 1);
  }
  g.strokeStyle = "#000"; g.strokeRect(0.5, TOP - 0.5, BAR_W - 1, H + 1);
  g.fillStyle = "#000"; g.font = "12px sans-serif"; g.textBaseline = "middle"; g.textAlign = "left";
  const values = [...Array(BAR_TICKS).keys()].map((i) => valueAt(layer, i / (BAR_TICKS - 1)));
  const step = Math.abs(values[1] - values[0]) || 1;
  values.forEach((v, i) => {
    const y = TOP + H - 1 - Math.round(((H - 1) * i) / (BAR_TICKS - 1));
    let text = label(v, step / 10);
    if (i === 0 && below) text = "≤ " + text;
    if (i === BAR_TICKS - 1 && above) text = "≥ " + text;
    g.fillRect(BAR_W, y, 5, 1);
    g.fillText(text, BAR_W + 8, y);
  });
}

function drawFrame(buf) {
  const s = hk.setup, layer = s.layers.find((l) => l.name === hk.layer);
  const view = new DataView(buf);
  const w = view.getUint32(4, true), h = view.getUint32(8, true), n = w * h;
  if (w !== s.w || h !== s.h || buf.byteLength < 32 + 3 * n) throw new Error("a frame of another size");
  const seq = view.getUint32(12, true), t = view.getFloat64(16, true), step = Number(view.getBigUint64(24, true));
  const halves = new Uint16Array(buf.slice(32, 32 + 2 * n)), dry = new Uint8Array(buf, 32 + 2 * n, n);
  // A map with a relief of its own (a basin's height) brings its hillshade with each frame.
  const own = buf.byteLength >= 32 + 5 * n ? new Uint16Array(buf.slice(32 + 3 * n, 32 + 5 * n)) : null;
  const field = $("field"), g = field.getContext("2d"), img = g.createImageData(w, h);
  let below = false, above = false;
  for (let j = 0; j < h; j++) {
    for (let i = 0; i < w; i++) {
      const k = j * w + i, v = HALF[halves[k]], isDry = layer.ground && dry[k] === 1;
      const water = !isDry && Number.isFinite(v);
      if (water) { below ||= v < layer.range[0]; above ||= v > layer.range[1]; }
      // A layer with unset cells (outside the domain) draws its NaN in the unset grey, unshaded.
      const unset = layer.unset && !isDry && Number.isNaN(v);
      let c = unset ? s.unset : colour(layer.colormap, isDry || !Number.isFinite(v) ? NaN : fraction(layer, v), s.nan);
      if (layer.ground && !unset) {
        const sh = own ? HALF[own[k]] : hk.shade ? hk.shade[k] : 1;
        c = isDry ? shaded(s.land, sh, 1) : shaded(c, sh, s.under_water);
      }
      const p = 4 * ((h - 1 - j) * w + i);
      img.data[p] = c[0]; img.data[p + 1] = c[1]; img.data[p + 2] = c[2]; img.data[p + 3] = 255;
    }
  }
  g.putImageData(img, 0, 0);
  drawBar(layer, below, above);
  hk.drawn = seq; hk.t = t; hk.step = step;
  document.body.dataset.drawn = String(seq);
}

async function fetchFrame() {
  if (hk.fetching || !hk.setup) return;
  hk.fetching = true;
  try {
    while (hk.drawn !== hk.seq) {
      const want = hk.seq;
      const r = await fetch(`/frame?layer=${encodeURIComponent(hk.layer)}&viewer=${hk.viewer}`);
      if (!r.ok) break;
      drawFrame(await r.arrayBuffer());
      if (hk.drawn < want) hk.drawn = want;
    }
  } catch (e) {
    $("message").textContent = "frame: " + e;
  } finally {
    hk.fetching = false;
  }
}

// A line plot of (t, y) series, with its ranges as labels.
function plot(canvas, series, names, unit) {
  const g = canvas.getContext("2d"), W = canvas.width, H = canvas.height, L = 70, B = 22, T = 8, R = 8;
  g.clearRect(0, 0, W, H);
  const pts = series.flat();
  if (pts.length === 0) return;
  const ts = pts.map((p) => p[0]), ys = pts.map((p) => p[1]).filter(Number.isFinite);
  const t0 = Math.min(...ts), t1 = Math.max(...ts, t0 + 1e-12);
  let y0 = Math.min(...ys), y1 = Math.max(...ys);
  if (!(y1 > y0)) { const d = Math.abs(y0) * 0.05 || 1e-12; y0 -= d; y1 += d; }
  const X = (t) => L + ((t - t0) / (t1 - t0)) * (W - L - R), Y = (y) => H - B - ((y - y0) / (y1 - y0)) * (H - B - T);
  g.strokeStyle = "#000"; g.strokeRect(L + 0.5, T + 0.5, W - L - R - 1, H - B - T - 1);
  g.fillStyle = "#000"; g.font = "11px sans-serif";
  g.textAlign = "right"; g.textBaseline = "middle";
  g.fillText(y1.toPrecision(3), L - 4, T + 4); g.fillText(y0.toPrecision(3), L - 4, H - B - 4);
  g.textAlign = "center"; g.textBaseline = "top";
  g.fillText(`${+t0.toPrecision(4)} ${unit}`, L + 20, H - B + 4); g.fillText(`${+t1.toPrecision(4)} ${unit}`, W - R - 30, H - B + 4);
  const palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"];
  series.forEach((s, k) => {
    g.strokeStyle = palette[k % palette.length]; g.beginPath();
    s.forEach((p, i) => (i ? g.lineTo(X(p[0]), Y(p[1])) : g.moveTo(X(p[0]), Y(p[1]))));
    g.stroke();
    if (names[k]) { g.fillStyle = g.strokeStyle; g.textAlign = "left"; g.fillText(names[k], L + 6, T + 4 + 13 * k); }
  });
}

function plots() {
  const s = hk.setup;
  if (!s) return;
  plot($("balance"), hk.balance.length ? [hk.balance] : [], [], s.unit);
  const names = s.gauges || [];
  const series = names.map((_, k) => hk.gauges.map(([t, v]) => [t, v[k]]));
  plot($("gauges"), series, names, s.unit);
}

function status(st) {
  hk.seq = st.seq; hk.state = st.state;
  document.body.dataset.state = st.state;
  document.body.dataset.seq = String(st.seq);
  const unit = hk.setup ? hk.setup.unit : "";
  $("clock").textContent = `t = ${st.t.toPrecision(6)} ${unit}   step ${st.step}   Δt = ${st.dt.toPrecision(4)} ${unit}`;
  $("state").textContent = st.state + (st.viewers > 1 ? ` (${st.viewers} watching)` : "");
  if (st.balance && (hk.balance.length === 0 || hk.balance[hk.balance.length - 1][0] !== st.balance[0])) {
    hk.balance.push(st.balance);
    $("balance-title").textContent = st.balance_name || "balance";
  }
  if (st.gauges && st.gauges.length && (hk.gauges.length === 0 || hk.gauges[hk.gauges.length - 1][0] !== st.t)) {
    hk.gauges.push([st.t, st.gauges]);
  }
  plots();
  fetchFrame();
}

async function start() {
  // The setup comes with the run's first frame.
  for (;;) {
    const r = await fetch("/setup");
    if (r.ok) { hk.setup = await r.json(); break; }
    await new Promise((ok) => setTimeout(ok, 200));
  }
  const s = hk.setup;
  $("run").textContent = s.run;
  const r = await fetch("/shade");
  if (r.ok) hk.shade = new Float32Array(await r.arrayBuffer());
  const h = await (await fetch("/history")).json();
  hk.balance = h.balance; hk.gauges = h.gauges;
  if (h.balance_name) $("balance-title").textContent = h.balance_name;
  $("gauges-title").textContent = s.gauges.length ? `gauges: ${s.gauge_label}` : "gauges: none in this case";
  const select = $("layer");
  for (const l of s.layers) select.add(new Option(l.name, l.name));
  hk.layer = s.layers[0].name;
  select.onchange = () => { hk.layer = select.value; hk.drawn = 0; drawAxes(s.layers.find((l) => l.name === hk.layer)); fetchFrame(); };
  drawAxes(s.layers[0]);
  const events = new EventSource(`/events?fps=${FPS}`);
  events.addEventListener("hello", (e) => { hk.viewer = JSON.parse(e.data).viewer; });
  events.addEventListener("status", (e) => {
    const st = JSON.parse(e.data);
    status(st);
    if (["finished", "stopped", "failed", "stopped at the step limit"].includes(st.state)) { hk.ended = true; events.close(); }
  });
  events.onerror = () => { if (!hk.ended) $("message").textContent = "the run's server does not answer"; };
}

async function command(what) {
  const r = await fetch("/control", { method: "POST", body: what });
  if (!r.ok) $("message").textContent = await r.text();
}

$("pause").onclick = () => command("pause");
$("resume").onclick = () => command("resume");
$("stop").onclick = () => command("stop");
start();
