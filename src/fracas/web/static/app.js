// The fracas calculator page. Plain JavaScript, no build step, no third-party code: it
// talks to the server only through the JSON API under /api. It never puts user text into
// the page as HTML; the report HTML comes from the server's renderer, which escapes it.
"use strict";

const $ = (id) => document.getElementById(id);
const OPERATIONS = ["resolve", "odds", "forecast", "advise"];
const LINK_VERSION = 1;

const state = {
  rulesets: new Map(),     // name → ruleset description (capabilities, parameters)
  examples: [],
  op: "resolve",
  overrides: {},           // key path → value, sent as `overrides` (like --set)
  original: {},            // key path → value in the text, to tell edits apart
  capabilities: null,
  answer: null,
  validated: "",           // the text+overrides last validated
};

// ── API ────────────────────────────────────────────────────────────────────────────────

class ApiError extends Error {
  constructor(status, detail) {
    super(detail.message);
    this.status = status;
    this.detail = detail;
  }
}

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  };
  const response = await fetch(path, init);
  let data;
  try {
    data = await response.json();
  } catch {
    throw new ApiError(response.status, { message: `the server answered ${response.status}`, problem: "" });
  }
  if (!response.ok) {
    throw new ApiError(response.status, data.error || { message: `the server answered ${response.status}` });
  }
  return data;
}

function scenarioRequest() {
  const request = { scenario: $("text").value, name: $("name").value || "scenario.yaml", overrides: state.overrides };
  if ($("format").value) request.format = $("format").value;
  return request;
}

function numberOrNull(input) {
  return input.value === "" ? null : Number(input.value);
}

function operationRequest(op) {
  const request = scenarioRequest();
  if ($("forum").value !== "phpbb") request.forum = $("forum").value;
  if ($("fold").checked) request.fold = true;
  if ($("ascii").checked) request.ascii_only = true;
  if (op === "resolve") {
    const seed = numberOrNull($("seed"));
    if (seed !== null) request.seed = seed;
  } else if (op === "odds") {
    request.method = $("method").value;
    const runs = numberOrNull($("runs"));
    const seed = numberOrNull($("odds-seed"));
    if (runs !== null) request.runs = runs;
    if (seed !== null) request.seed = seed;
    // Only exact odds leave chances out; sampling has nothing to skip.
    const tolerance = numberOrNull($("exact-tolerance"));
    if (tolerance !== null && request.method !== "mc") request.exact_tolerance = tolerance;
  } else if (op === "forecast") {
    request.attacker = $("attacker").value;
    request.target = $("target").value;
  } else if (op === "advise") {
    request.side = $("side").value;
  }
  return request;
}

// ── scenario: examples, upload, validation, the form ───────────────────────────────────

function fillExamples() {
  const select = $("example");
  const groups = new Map();
  for (const example of state.examples) {
    if (!groups.has(example.ruleset)) {
      const group = document.createElement("optgroup");
      const ruleset = state.rulesets.get(example.ruleset);
      group.label = ruleset ? `${ruleset.name} — ${ruleset.title}` : example.ruleset;
      groups.set(example.ruleset, group);
      select.append(group);
    }
    const option = document.createElement("option");
    option.value = example.id;
    option.textContent = example.title;
    groups.get(example.ruleset).append(option);
  }
}

function setScenario(text, name, format) {
  $("text").value = text;
  $("name").value = name;
  $("format").value = format || "";
  // A new scenario starts from its own seed, not from the last one's.
  $("seed").value = "";
  $("odds-seed").value = "";
  state.overrides = {};
}

async function pickExample(id) {
  const example = state.examples.find((e) => e.id === id);
  if (!example) return;
  setScenario(example.scenario, example.name, "");
  clearAnswer();
  if (await validate()) await run("resolve");
}

function availableOps() {
  const caps = state.capabilities || {};
  return Object.fromEntries(OPERATIONS.filter((op) => caps[op]).map((op) => [op, true]));
}

async function validate() {
  const request = scenarioRequest();
  const key = JSON.stringify(request);
  try {
    const answer = await api("/api/validate", request);
    // The scenario changed while this answer was on its way: a newer one will follow.
    if (JSON.stringify(scenarioRequest()) !== key) return false;
    state.validated = key;
    state.capabilities = answer.capabilities;
    showScenarioError(null);
    $("ruleset").hidden = false;
    $("ruleset").textContent = answer.ruleset;
    buildForm(answer.fields);
    fillChoices(answer.choices);
    showTabs();
    return true;
  } catch (error) {
    if (JSON.stringify(scenarioRequest()) === key) showScenarioError(error);
    return false;
  }
}

function showScenarioError(error) {
  const box = $("scenario-error");
  document.querySelectorAll(".fields input.invalid").forEach((input) => input.classList.remove("invalid"));
  document.querySelectorAll(".field-error").forEach((note) => note.remove());
  $("text").classList.toggle("invalid", Boolean(error));
  // An answer shown beside a scenario that no longer loads is an old answer: say so.
  $("result").classList.toggle("stale", Boolean(error) && Boolean(state.answer));
  if (!error) {
    box.hidden = true;
    box.textContent = "";
    return;
  }
  box.hidden = false;
  box.textContent = error.message;
  const path = error.detail && error.detail.path;
  if (!path) return;
  // The same message beside the field that holds the bad value, when the form shows it.
  const input = document.querySelector(`.fields input[data-path="${CSS.escape(path)}"]`);
  if (input) {
    input.classList.add("invalid");
    const note = document.createElement("span");
    note.className = "field-error";
    note.textContent = error.detail.problem;
    input.after(note);
  }
}

function buildForm(groups) {
  const form = $("form");
  form.replaceChildren();
  state.original = {};
  for (const group of groups) {
    const box = document.createElement("div");
    box.className = "group";
    const title = document.createElement("h3");
    title.textContent = group.title + " ";
    if (group.path !== group.title) {
      const where = document.createElement("small");
      where.textContent = group.path;
      title.append(where);
    }
    const fields = document.createElement("div");
    fields.className = "fields";
    for (const field of group.fields) {
      const label = document.createElement("label");
      // Long keys (caught_wounds_per_unit_strength) may break after an underscore.
      label.textContent = field.label.replaceAll("_", "_\u200b");
      if (field.help) label.title = field.help;
      const input = document.createElement("input");
      input.type = "number";
      input.step = field.kind === "integer" ? "1" : "any";
      input.dataset.path = field.path;
      state.original[field.path] = field.value;
      const edited = Object.prototype.hasOwnProperty.call(state.overrides, field.path);
      input.value = edited ? state.overrides[field.path] : field.value;
      input.classList.toggle("edited", edited);
      input.addEventListener("change", () => editField(input));
      label.append(input);
      fields.append(label);
    }
    box.append(title, fields);
    form.append(box);
  }
  $("form-box").hidden = groups.length === 0;
}

async function editField(input) {
  const path = input.dataset.path;
  const value = input.value === "" ? null : Number(input.value);
  if (value === state.original[path]) delete state.overrides[path];
  else state.overrides[path] = value;
  input.classList.toggle("edited", path in state.overrides);
  if (await validate() && state.answer && state.op !== "odds") await run(state.op);
}

function fillChoices(choices) {
  const fill = (select, names, preferred) => {
    const keep = select.value;
    select.replaceChildren(...names.map((name) => new Option(name, name)));
    if (names.includes(keep)) select.value = keep;
    else if (preferred !== undefined && names[preferred] !== undefined) select.value = names[preferred];
  };
  fill($("attacker"), choices.units, 0);
  fill($("target"), choices.units, choices.units.length - 1);
  fill($("side"), choices.sides, 0);
}

function showTabs() {
  const ops = availableOps();
  for (const tab of document.querySelectorAll(".tabs button")) tab.hidden = !ops[tab.dataset.op];
  if (!ops[state.op]) selectTab("resolve");
  $("roll-again").hidden = !(state.capabilities && state.capabilities.seed);
  $("seed").closest("label").hidden = !(state.capabilities && state.capabilities.seed);
}

function selectTab(op) {
  state.op = op;
  for (const tab of document.querySelectorAll(".tabs button")) {
    tab.setAttribute("aria-selected", String(tab.dataset.op === op));
  }
  for (const form of document.querySelectorAll("form.controls")) form.hidden = form.dataset.op !== op;
}

// ── answers ────────────────────────────────────────────────────────────────────────────

function clearAnswer() {
  state.answer = null;
  $("result").hidden = true;
  $("limits").hidden = true;
  $("option-error").hidden = true;
  $("status").textContent = "";
}

async function run(op) {
  selectTab(op);
  const buttons = document.querySelectorAll("form.controls button");
  buttons.forEach((button) => { button.disabled = true; });
  $("option-error").hidden = true;
  $("status").textContent = op === "odds" ? "Working out the odds…" : "Working…";
  const started = performance.now();
  const sent = JSON.stringify(scenarioRequest());
  const current = () => JSON.stringify(scenarioRequest()) === sent;
  try {
    const answer = await api(`/api/${op}`, operationRequest(op));
    if (!current()) return;  // an answer for a scenario no longer on the page
    const seconds = ((performance.now() - started) / 1000).toFixed(2);
    state.answer = answer;
    showScenarioError(null);
    showAnswer(answer);
    $("status").textContent = `${answer.title} — answered in ${seconds} s`;
    await writeLink();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (!current()) return;
    $("status").textContent = "";
    // A bad scenario goes beside the scenario; a bad option (seed, runs…) beside the options.
    if (error.detail.source || (error.detail.path && !isOption(error.detail.path))) {
      showScenarioError(error);
    } else {
      $("option-error").hidden = false;
      $("option-error").textContent = error.message;
    }
  } finally {
    buttons.forEach((button) => { button.disabled = false; });
  }
}

function isOption(path) {
  return ["seed", "runs", "method", "max_runs", "exact_budget", "sample_budget", "attacker",
    "target", "side", "precision", "confidence", "exact_tolerance"].includes(path.split(/[.[]/)[0]);
}

function showMethodOptions() {
  $("tolerance-box").hidden = $("method").value === "mc";
}

function showAnswer(answer) {
  $("result").hidden = false;
  $("command").textContent = answer.command;
  const post = [answer.command, ...answer.post_options].join(" ");
  $("copy-bbcode").title = `The same post: ${post} --format bbcode`;
  $("copy-markdown").title = `The same post: ${post} --format markdown`;
  $("footer").textContent = answer.footer;
  const limits = $("limits");
  limits.hidden = answer.limits.length === 0;
  limits.textContent = answer.limits.join(" ");
  const picture = $("picture");
  picture.hidden = !answer.picture;
  // An <img> never runs scripts, whatever the picture holds.
  if (answer.picture) $("picture-img").src = answer.picture;
  $("report").innerHTML = answer.html;  // escaped by the server's HTML renderer
  if (answer.seed !== null && answer.seed !== undefined && state.op === "resolve") {
    $("seed").value = answer.seed;
  }
}

async function copyText(text, what) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const scratch = document.createElement("textarea");
    scratch.value = text;
    document.body.append(scratch);
    scratch.select();
    document.execCommand("copy");
    scratch.remove();
  }
  $("copied").textContent = `${what} copied`;
  setTimeout(() => { $("copied").textContent = ""; }, 2500);
}

function downloadJson() {
  const answer = state.answer;
  const blob = new Blob([JSON.stringify(answer.document, null, 2) + "\n"], { type: "application/json" });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  const stem = ($("name").value || "scenario").replace(/\.[^.]*$/, "");
  link.download = `${stem}.${state.op}.json`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

// ── permalinks: the whole scenario and the options, compressed into the fragment ───────

function linkState() {
  return {
    v: LINK_VERSION,
    op: state.op,
    name: $("name").value,
    format: $("format").value,
    scenario: $("text").value,
    overrides: state.overrides,
    options: operationRequest(state.op),
  };
}

async function squeeze(text) {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

async function unsqueeze(data) {
  const binary = atob(data.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
  return new Response(stream).text();
}

async function writeLink() {
  const data = await squeeze(JSON.stringify(linkState()));
  history.replaceState(null, "", `#s=${data}`);
}

async function openLink() {
  const match = /^#s=([A-Za-z0-9_-]+)$/.exec(location.hash);
  if (!match) return false;
  let saved;
  try {
    saved = JSON.parse(await unsqueeze(match[1]));
  } catch {
    showScenarioError(new ApiError(0, { message: "this link is damaged: its scenario cannot be read" }));
    return true;
  }
  setScenario(saved.scenario || "", saved.name || "scenario.yaml", saved.format || "");
  const bundled = state.examples.find((e) => e.scenario === saved.scenario && e.name === saved.name);
  $("example").value = bundled ? bundled.id : "";
  state.overrides = saved.overrides || {};
  const options = saved.options || {};
  if (options.seed !== undefined) $(saved.op === "odds" ? "odds-seed" : "seed").value = options.seed;
  if (options.method) $("method").value = options.method;
  if (options.runs) $("runs").value = options.runs;
  if (options.exact_tolerance !== undefined) $("exact-tolerance").value = options.exact_tolerance;
  showMethodOptions();
  if (options.forum) $("forum").value = options.forum;
  $("fold").checked = Boolean(options.fold);
  $("ascii").checked = Boolean(options.ascii_only);
  if (await validate()) {
    if (options.attacker) $("attacker").value = options.attacker;
    if (options.target) $("target").value = options.target;
    if (options.side) $("side").value = options.side;
    await run(OPERATIONS.includes(saved.op) && availableOps()[saved.op] ? saved.op : "resolve");
  }
  return true;
}

// ── wiring ─────────────────────────────────────────────────────────────────────────────

function debounce(action, wait) {
  let timer = 0;
  return () => {
    clearTimeout(timer);
    timer = setTimeout(action, wait);
  };
}

function wire() {
  $("example").addEventListener("change", (event) => pickExample(event.target.value));
  $("upload").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (!file) return;
    setScenario(await file.text(), file.name, "");
    $("example").value = "";
    clearAnswer();
    if (await validate()) await run("resolve");
    event.target.value = "";
  });
  const revalidate = debounce(() => validate(), 350);
  $("text").addEventListener("input", () => { $("example").value = ""; revalidate(); });
  $("name").addEventListener("change", () => validate());
  $("format").addEventListener("change", () => validate());
  $("reset-edits").addEventListener("click", async () => {
    state.overrides = {};
    if (await validate() && state.answer && state.op !== "odds") await run(state.op);
  });
  for (const tab of document.querySelectorAll(".tabs button")) {
    tab.addEventListener("click", () => selectTab(tab.dataset.op));
  }
  for (const form of document.querySelectorAll("form.controls")) {
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      run(form.dataset.op);
    });
  }
  $("roll-again").addEventListener("click", () => {
    $("seed").value = Math.floor(Math.random() * 1_000_000);
    run("resolve");
  });
  $("method").addEventListener("change", showMethodOptions);
  $("copy-bbcode").addEventListener("click", () => copyText(state.answer.bbcode, "BBCode"));
  $("copy-markdown").addEventListener("click", () => copyText(state.answer.markdown, "Markdown"));
  $("download-json").addEventListener("click", downloadJson);
  $("copy-link").addEventListener("click", () => copyText(location.href, "Link"));
  for (const id of ["forum", "fold", "ascii"]) {
    $(id).addEventListener("change", () => {
      if (state.answer && state.op !== "odds") run(state.op);
    });
  }
}

async function start() {
  wire();
  const [rulesets, examples] = await Promise.all([api("/api/rulesets"), api("/api/examples")]);
  for (const ruleset of rulesets) state.rulesets.set(ruleset.name, ruleset);
  state.examples = examples;
  fillExamples();
  if (await openLink()) return;
  if (examples.length) {
    $("example").value = examples[0].id;
    await pickExample(examples[0].id);
  }
}

document.addEventListener("DOMContentLoaded", () => {
  start().catch((error) => {
    $("status").textContent = `The page could not start: ${error.message}`;
  });
});
