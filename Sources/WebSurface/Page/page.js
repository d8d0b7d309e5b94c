// pulsejack's live page: one WebSocket (snapshot, then deltas, meter frames and events), a
// radial trace redrawn at the display's refresh rate, and commands as OSC messages in JSON.
"use strict";

const page = {
  layout: null, state: {}, connected: false,
  meterFrames: 0, beats: 0, regionHits: 0, flashes: [], offset: 0, bestRoundTrip: Infinity,
  modulations: [],  // per modulation, its values in the last meter frame: [source, destination, on]
  trace: [],  // {t (server ms), peak: [l, r], rms: [l, r]}
};
window.pulsejack = page;

const $ = (id) => document.getElementById(id);
const token = new URLSearchParams(location.search).get("token");
let socket = null;

function connect() {
  const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws" +
    (token ? "?token=" + encodeURIComponent(token) : "");
  socket = new WebSocket(url);
  socket.onopen = () => { setConnected(true); ping(); };
  socket.onclose = () => { setConnected(false); setTimeout(connect, 1000); };
  socket.onmessage = (event) => receive(JSON.parse(event.data));
}

function setConnected(on) {
  page.connected = on;
  $("connection").textContent = on ? "live" : "reconnecting…";
  $("connection").className = on ? "on" : "off";
}

function send(address, args) {
  if (socket && socket.readyState === WebSocket.OPEN) {
    socket.send(JSON.stringify({ type: "control", address, args }));
  }
}

// The server's wall clock on ours: the offset from the ping with the shortest round trip.
function ping() {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "ping", t: Date.now() }));
}
setInterval(ping, 2000);
const serverNow = () => Date.now() + page.offset;

function receive(message) {
  switch (message.type) {
    case "snapshot": page.layout = message.layout; page.state = message.state; build(); render(); break;
    case "delta": Object.assign(page.state, message.state); render(); break;
    case "meter": meter(message); break;
    case "beat": {
      page.beats += 1;
      // The big light is the first performer's heart; each performer has a small one too.
      if (!message.performer) at(message.heard, () => flash($("beat"), message));
      const light = document.querySelector(`.performer[data-index="${message.performer}"] .light`);
      if (light) at(message.heard, () => flash(light));
      break;
    }
    case "fired": { const light = document.querySelector(`.voice[data-index="${message.voice}"] .light`);
      if (light) at(message.heard, () => flash(light)); break; }
    case "region": { page.regionHits += 1; const cell = document.querySelector(`.region[data-index="${message.region}"]`);
      if (cell) at(message.heard, () => flash(cell, null, "lit", 300)); break; }
    case "pong": {
      const now = Date.now(), trip = now - message.t;
      if (trip <= page.bestRoundTrip) { page.bestRoundTrip = trip; page.offset = message.server - (message.t + now) / 2; }
      break;
    }
    case "error": $("error").textContent = message.message; setTimeout(() => { $("error").textContent = ""; }, 4000); break;
  }
}

// Lights due on the screen: each in the display frame nearest the server time it names (run
// from the drawing loop, so a light lands on the frame, not one frame after a timer).
const due = [];
function at(when, action) {
  if (due.length > 256) due.shift();  // a hidden page draws nothing: keep the latest only
  due.push({ when, action });
}
function runDue() {
  const now = serverNow(), halfFrame = 8;
  for (let index = 0; index < due.length;) {
    if (due[index].when - now <= halfFrame) { due[index].action(); due.splice(index, 1); } else index += 1;
  }
}

// Lights `element` in this display frame; for beats, records that frame's time (the benchmark
// reads `flashes` back).
function flash(element, beat, name = "flash", hold = 90) {
  element.classList.add(name);
  if (beat) {
    page.flashes.push({ frame: beat.frame, at: beat.at, heard: beat.heard, shown: serverNow() });
    if (page.flashes.length > 512) page.flashes.shift();
  }
  setTimeout(() => element.classList.remove(name), hold);
}

// --- the radial trace -----------------------------------------------------------------------

function meter(frame) {
  page.meterFrames += 1;
  if (frame.modulations) showModulations(frame.modulations);
  page.trace.push({ t: frame.t, peak: frame.peak, rms: frame.rms });
  const keep = (page.layout ? page.layout.revolutionSeconds : 10) * 1000;
  while (page.trace.length > 2 && frame.t - page.trace[0].t > keep) page.trace.shift();
}

function draw() {
  runDue();
  const canvas = $("radial"), context = canvas.getContext("2d");
  const size = canvas.width, centre = size / 2, inner = size * 0.075, outer = size * 0.45;
  const floor = page.layout ? page.layout.floorDB : -60, revolution = (page.layout ? page.layout.revolutionSeconds : 10) * 1000;
  const radius = (level) => inner + (Math.min(Math.max(level ?? floor, floor), 0) - floor) / -floor * (outer - inner);
  context.clearRect(0, 0, size, size);
  context.strokeStyle = "#2a3038"; context.lineWidth = 1;
  for (const level of [-60, -40, -20, -6, 0]) {
    context.beginPath(); context.arc(centre, centre, radius(level), 0, 2 * Math.PI); context.stroke();
  }
  const now = page.trace.length ? page.trace[page.trace.length - 1].t : 0;
  // The hand: where the newest reading is drawn.
  const hand = ((now % revolution) / revolution) * 2 * Math.PI - Math.PI / 2;
  context.strokeStyle = "#555"; context.beginPath(); context.moveTo(centre, centre);
  context.lineTo(centre + outer * Math.cos(hand), centre + outer * Math.sin(hand)); context.stroke();
  const traces = [["peak", 0, "#ff5a7a"], ["rms", 0, "#ffb0c0"], ["peak", 1, "#4fb3ff"], ["rms", 1, "#b0dcff"]];
  for (const [kind, channel, colour] of traces) {
    context.strokeStyle = colour; context.lineWidth = kind === "peak" ? 1.5 : 2.5;
    context.beginPath();
    let previous = null;
    for (const point of page.trace) {
      const angle = ((point.t % revolution) / revolution) * 2 * Math.PI - Math.PI / 2;
      const r = radius(point[kind][channel]);
      const x = centre + r * Math.cos(angle), y = centre + r * Math.sin(angle);
      // A new lap starts a new line (no chord across the circle).
      if (previous === null || angle < previous) context.moveTo(x, y); else context.lineTo(x, y);
      previous = angle;
    }
    context.stroke();
  }
  requestAnimationFrame(draw);
}
requestAnimationFrame(draw);

// --- controls ---------------------------------------------------------------------------------

function element(tag, attributes = {}, children = []) {
  const made = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === "text") made.textContent = value; else made.setAttribute(key, value);
  }
  for (const child of children) made.append(child);
  return made;
}

// A slider that sends while dragged (at most 20 times a second) and is not moved by deltas then.
function slider(min, max, step, onValue) {
  const input = element("input", { type: "range", min, max, step });
  let last = 0, timer = null;
  input.addEventListener("input", () => {
    input.dataset.dragging = "1";
    const wait = 50 - (Date.now() - last);
    clearTimeout(timer);
    if (wait <= 0) { last = Date.now(); onValue(Number(input.value)); } else timer = setTimeout(() => { last = Date.now(); onValue(Number(input.value)); }, wait);
  });
  input.addEventListener("change", () => { delete input.dataset.dragging; onValue(Number(input.value)); });
  return input;
}

// A modulated fader follows its modulation (`showModulations`), not the state's manual value.
function setValue(input, value, modulated = false) {
  if (input.dataset.dragging || (!modulated && input.classList.contains("modulated"))) return;
  if (input.type === "checkbox") input.checked = value; else input.value = value;
}

function build() {
  const layout = page.layout;
  $("preset").textContent = layout.preset;
  $("server").textContent = `${layout.server} · ${layout.sampleRate} Hz · ${layout.period} frames`;
  $("revolution").textContent = `one revolution per ${layout.revolutionSeconds} s`;
  const strips = $("strips"); strips.replaceChildren();
  layout.voices.forEach((voice, index) => {
    const address = `/voice/${voice.name}`;
    const enable = element("input", { type: "checkbox", class: "enable", "aria-label": `${voice.name} on` });
    enable.addEventListener("change", () => send(address + "/enable", [enable.checked ? 1 : 0]));
    const gain = slider(layout.gain[0], layout.gain[1], 0.01, (value) => send(address + "/gain", [value])); gain.classList.add("gain");
    const pan = slider(layout.pan[0], layout.pan[1], 0.01, (value) => send(address + "/pan", [value])); pan.classList.add("pan");
    const every = element("select", { class: "every" });
    for (let n = layout.every[0]; n <= layout.every[1]; n++) every.append(element("option", { value: n, text: n }));
    const subdivision = element("select", { class: "subdivision" });
    for (const n of layout.subdivisions) subdivision.append(element("option", { value: n, text: n }));
    const rate = () => send(address + "/rate", [Number(every.value), Number(subdivision.value)]);
    every.addEventListener("change", rate); subdivision.addEventListener("change", rate);
    const trigger = element("button", { type: "button", class: "trigger", text: "trigger" });
    trigger.addEventListener("click", () => send(address + "/trigger", [1]));
    strips.append(element("div", { class: "voice", "data-index": index, "data-voice": voice.name }, [
      element("div", { class: "name" }, [element("span", { class: "light" }), voice.name, element("span", { class: "kind", text: voice.kind }), enable]),
      element("label", { text: "gain" }), gain, element("label", { text: "pan" }), pan,
      element("label", { text: "every" }), element("span", {}, [every, " beat ÷ ", subdivision]),
      element("span"), trigger,
    ]));
  });
  $("regions").replaceChildren(...layout.regions.map((name, index) => {
    const cell = element("div", { class: "region", "data-index": index, text: name });
    cell.addEventListener("click", () => send(`/region/${name}`, [1]));
    return cell;
  }));
  $("modes").replaceChildren(...layout.modes.map((mode) => {
    const button = element("button", { type: "button", "data-mode": mode, text: mode });
    button.addEventListener("click", () => send("/mode", [mode]));
    return button;
  }));
  $("bands").replaceChildren(...layout.bands.map((band) => element("div", { class: "band", "data-band": band }, [
    element("span", { text: band }), element("div", { class: "bar" }, [element("div")]), element("span", { class: "value" })])));
  const inserts = $("insert-list"); inserts.replaceChildren();
  let group = null, key = null;
  layout.controls.forEach((control, index) => {
    const here = `${control.place}/insert/${control.number}`;
    if (here !== key) {
      key = here;
      group = element("div", { class: "insert" }, [element("div", { text: `${control.place} · ${control.number}: ${control.plugin}` })]);
      inserts.append(group);
    }
    const address = `/${here}/${control.symbol}`;
    let input;
    if (control.symbol === "bypass") {
      input = element("input", { type: "checkbox" });
      input.addEventListener("change", () => send(address, [input.checked ? 1 : 0]));
    } else {
      input = slider(control.min, control.max, "any", (value) => send(address, [value]));
    }
    input.dataset.control = index;
    group.append(element("div", { class: "control" }, [element("label", { text: control.name }), input]));
  });
  $("inserts").hidden = layout.controls.length === 0;
  buildModulations(layout);
  $("tap").onclick = () => send("/pulse/beat", []);
  $("performers").replaceChildren(...(layout.performers || []).map((name, index) => element("span", { class: "performer", "data-index": index },
    [element("span", { class: "light" }), ` ${name} `, element("b", { class: "performer-bpm", text: "–" })])));
}

// Each modulation's row, and the fader it moves: while on, the fader follows the modulation
// (dragging it sets the value it returns to when switched off).
function showModulations(values) {
  page.modulations = values;
  (page.layout ? page.layout.modulations : []).forEach((modulation, index) => {
    const [source, destination, on] = values[index] || [null, null, false];
    const row = document.querySelector(`.modulation[data-index="${index}"]`);
    if (!row) return;
    row.querySelector(".source").textContent = source == null ? "–" : +source.toFixed(3);
    row.querySelector(".destination").textContent = destination == null ? "–" : +destination.toFixed(3);
    setValue(row.querySelector(".switch"), on);
    row.classList.toggle("off", !on);
    const fader = modulatedFader(modulation);
    if (fader) {
      const was = fader.classList.contains("modulated");
      fader.classList.toggle("modulated", on);
      if (on && destination != null) setValue(fader, fader.type === "checkbox" ? destination >= 0.5 : destination, true);
      if (was && !on) render();  // back to the manual value the state holds
    }
  });
}

function modulatedFader(modulation) {
  if (modulation.voice != null) return document.querySelector(`.voice[data-index="${modulation.voice}"] .${modulation.parameter}`);
  if (modulation.control != null) return document.querySelector(`[data-control="${modulation.control}"]`);
  return null;
}

function buildModulations(layout) {
  const list = layout.modulations || [];
  $("modulations").hidden = list.length === 0;
  $("modulation-list").replaceChildren(...list.map((modulation, index) => {
    const toggle = element("input", { type: "checkbox", class: "switch", checked: "", "aria-label": `modulation ${index + 1} on` });
    toggle.addEventListener("change", () => send(`/modulation/${index + 1}/enable`, [toggle.checked ? 1 : 0]));
    const fader = modulatedFader(modulation);
    if (fader) fader.title = `modulated by ${modulation.from}: a change here is heard once the modulation is off`;
    return element("tr", { class: "modulation", "data-index": index }, [
      element("td", {}, [toggle]), element("td", { text: modulation.from }), element("td", { class: "source", text: "–" }),
      element("td", { text: "→" }), element("td", { text: modulation.to }), element("td", { class: "destination", text: "–" })]);
  }));
}

// BlazePose's bones (landmark pairs), the fists (the wrists) and the regions' enter thresholds,
// drawn in the regions' own coordinates: from the hip, in torso lengths, up and toward the
// performer's right positive (the SVG's y points down, so y is negated).
const bones = [[11, 12], [11, 13], [13, 15], [12, 14], [14, 16], [11, 23], [12, 24], [23, 24], [23, 25], [25, 27], [24, 26], [26, 28], [0, 11], [0, 12]];
function drawSkeleton(pose) {
  // An SVG element has no `hidden` property: the attribute itself.
  const svg = $("skeleton");
  if (!pose) return svg.setAttribute("hidden", "");
  svg.removeAttribute("hidden");
  const ns = "http://www.w3.org/2000/svg", shapes = [];
  const shape = (name, attributes) => { const made = document.createElementNS(ns, name); for (const [key, value] of Object.entries(attributes)) made.setAttribute(key, value); shapes.push(made); };
  const t = pose.thresholds || {};
  if (t.up) shape("line", { class: "threshold", x1: -2.5, x2: 2.5, y1: -t.up[0], y2: -t.up[0] });
  if (t.down) shape("line", { class: "threshold", x1: -2.5, x2: 2.5, y1: -t.down[0], y2: -t.down[0] });
  if (t.left) shape("line", { class: "threshold", x1: t.left[0], x2: t.left[0], y1: -3.5, y2: 1.5 });
  if (t.right) shape("line", { class: "threshold", x1: t.right[0], x2: t.right[0], y1: -3.5, y2: 1.5 });
  const p = pose.points;
  for (const [a, b] of bones) {
    if (p[a] && p[b] && p[a][2] > 0.3 && p[b][2] > 0.3) shape("line", { class: "bone", x1: p[a][0], y1: -p[a][1], x2: p[b][0], y2: -p[b][1] });
  }
  for (const wrist of [15, 16]) if (p[wrist]) shape("circle", { class: "fist", cx: p[wrist][0], cy: -p[wrist][1], r: 0.09 });
  svg.replaceChildren(...shapes);
}

function render() {
  const state = page.state, layout = page.layout;
  if (!layout) return;
  $("bpm").textContent = state.bpm == null ? "–" : state.bpm.toFixed(1);
  document.querySelectorAll(".performer").forEach((element, index) => {
    const bpm = (state.performers || [])[index];
    element.querySelector(".performer-bpm").textContent = bpm == null ? "–" : bpm.toFixed(1);
  });
  $("dropout").hidden = !state.dropout;
  const [rmssd, sdnn, breaths] = (state.variability || [])[0] || [];
  $("variability").textContent = rmssd == null ? "" :
    `RMSSD ${rmssd.toFixed(1)} ms · SDNN ${sdnn.toFixed(1)} ms` + (breaths == null ? "" : ` · ${breaths.toFixed(1)} breaths/min`);
  layout.voices.forEach((voice, index) => {
    const setting = state[`voice.${index}`], strip = document.querySelector(`.voice[data-index="${index}"]`);
    if (!setting || !strip) return;
    strip.classList.toggle("off", !setting.enabled);
    setValue(strip.querySelector(".enable"), setting.enabled);
    setValue(strip.querySelector(".gain"), setting.gain);
    setValue(strip.querySelector(".pan"), setting.pan);
    setValue(strip.querySelector(".every"), setting.every);
    setValue(strip.querySelector(".subdivision"), setting.subdivision);
  });
  for (const button of document.querySelectorAll("#modes button")) button.classList.toggle("active", button.dataset.mode === state.mode);
  $("pattern").replaceChildren(...(state.pattern || []).map((step) => element("span", { text: step ?? "·" })));
  $("mood-name").textContent = state.mood ?? "undefined";
  $("track").textContent = state.track ?? "–";
  drawSkeleton(state.pose);
  for (const row of document.querySelectorAll(".band")) {
    const value = (state.bands || {})[row.dataset.band];
    row.querySelector(".bar div").style.width = value == null ? "0" : `${Math.min(Math.max(value, 0), 1) * 100}%`;
    row.querySelector(".value").textContent = value == null ? "–" : value.toFixed(2);
  }
  for (const input of document.querySelectorAll("[data-control]")) {
    const value = (state.controls || [])[Number(input.dataset.control)];
    if (value != null) setValue(input, input.type === "checkbox" ? value >= 0.5 : value);
  }
  const status = state.status || {};
  showLabStreams(status);
  $("counters").replaceChildren(...Object.entries(status).filter(([name]) => !name.startsWith("connected") && !name.startsWith("lsl_"))
    .map(([name, value]) => element("tr", {}, [element("td", { text: name }), element("td", { text: typeof value === "number" ? +value.toFixed(2) : value })])));
}

// Each LSL stream in and out (status fields lsl_in_N_… and lsl_out_N_…), a row each.
function showLabStreams(status) {
  const streams = new Map();
  for (const [name, value] of Object.entries(status)) {
    const found = /^lsl_(in|out)_(\d+)_(.+)$/.exec(name);
    if (!found) continue;
    const key = `${found[1]} ${found[2].padStart(3, "0")}`;
    if (!streams.has(key)) streams.set(key, { direction: found[1] });
    streams.get(key)[found[3]] = value;
  }
  $("lab").hidden = streams.size === 0;
  const rate = (hz) => (hz > 0 ? `${+hz.toFixed(2)} Hz` : "irregular");
  $("lab-streams").tBodies[0].replaceChildren(...[...streams.keys()].sort().map((key) => {
    const stream = streams.get(key);
    const correction = stream.direction === "in" ? `${+(stream.time_correction * 1000).toFixed(3)} ms` : "–";
    const state = stream.problem ? `${stream.state}: ${stream.problem}` : stream.direction === "out" && stream.consumers ? "open, read" : stream.state;
    return element("tr", {}, [stream.direction, stream.name, stream.type, rate(stream.rate), stream.samples, correction,
      stream.direction === "in" ? `${stream.lost} (${stream.dropouts} dropouts)` : "–", state].map((text) => element("td", { text: String(text) })));
  }));
}

connect();
