// The fracas calculator page. Plain JavaScript, no build step, no third-party code: it
// talks to the server only through the JSON API under /api. It never puts user text into
// the page as HTML; the report HTML comes from the server's renderer, which escapes it.
"use strict";

const $ = (id) => document.getElementById(id);
const OPERATIONS = ["resolve", "odds", "forecast", "advise", "threats", "reply", "compare"];
const SVG = "http://www.w3.org/2000/svg";
const VIEWS = { exactly: "Exactly", at_least: "At least", at_most: "At most" };
const TITLES = {
  resolve: "Battle", odds: "Odds", forecast: "Forecast", advise: "Advice", threats: "Threats",
  reply: "Reply", compare: "Comparison",
};
const LINK_VERSION = 1;

// ── user text: names, titles and file names as the scenario spells them ───────────────

// Characters that reorder or hide text (bidi embeddings, overrides, isolates and marks,
// controls, lone surrogates), spelled out as the server's renderers spell them: a name may
// hold U+202E, and it must not turn the page's own words around it backwards. The marks
// go too because an <option> or an SVG label cannot isolate a name from its neighbours.
const UNSEEN = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]/gu;

function spelled(text) {
  return String(text).replace(UNSEEN, (char) => {
    const code = char.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

// A piece of user text in its own bidi isolate. Isolation alone is not enough: a U+2069
// in the name would close the isolate early, hence spelled() as well.
function isolated(text) {
  const piece = document.createElement("bdi");
  piece.textContent = spelled(text);
  return piece;
}

// Page words and user text, in order: a user piece is written {user: text}.
const user = (text) => ({ user: String(text) });

function writeParts(node, parts) {
  node.replaceChildren(...parts.map((part) => (typeof part === "string" ? part : isolated(part.user))));
}

const state = {
  rulesets: new Map(),     // name → ruleset description (capabilities, parameters)
  examples: [],
  op: "resolve",
  overrides: {},           // key path → value, sent as `overrides` (like --set)
  original: {},            // key path → value in the text, to tell edits apart
  capabilities: null,
  answer: null,
  answerOp: null,          // the operation the answer on the page is for
  answerKey: "",           // every input of that answer: an edit since makes it stale
  validated: "",           // the text+overrides last validated
  identity: "",            // which scenario that was (scenarioIdentity); "" after a new one is set
  fields: [],              // the form's fields, as the last validation gave them
  attacks: [],             // legal [attacker, target] pairs, when the ruleset says
  changes: [],             // variant B: [key path, value] pairs on top of A
  view: "exactly",         // the charts: exactly / at least / at most
  chartMetric: "",         // the metric of the big chart ("": the headline's)
  compared: null,          // {a, b}: the two odds answers of a comparison
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
  } else if (op === "odds" || op === "compare") {
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
  } else if (op === "threats") {
    request.side = $("threats-side").value;
  } else if (op === "reply") {
    request.side = $("reply-side").value;
    if ($("reply-plan").checked) request.plan = true;
  }
  return request;
}

// Everything an answer of `op` depends on: when it differs from the answer's, the answer is old.
function inputsKey(op) {
  const key = { op, request: operationRequest(op) };
  if (op === "compare") key.changes = state.changes;
  return JSON.stringify(key);
}

function variantRequest() {
  const request = operationRequest("compare");
  request.overrides = { ...request.overrides, ...Object.fromEntries(state.changes) };
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
    option.textContent = spelled(example.title);
    groups.get(example.ruleset).append(option);
  }
}

function setScenario(text, name, format) {
  $("text").value = text;
  $("name").value = name;
  $("format").value = format || "";
  forgetEdits();
  state.identity = "";
}

// A new scenario starts from its own seed, not from the last one's, and without the edits
// and B's changes made for another one (their key paths may not even exist in it).
function forgetEdits() {
  $("seed").value = "";
  $("odds-seed").value = "";
  state.overrides = {};
  state.changes = [];
  state.chartMetric = "";
}

// Which scenario the text holds, as far as the form and B's changes care: its ruleset and
// the names of its units and sides. Another number is the same scenario edited.
function scenarioIdentity(answer) {
  return JSON.stringify([answer.ruleset, answer.choices.units, answer.choices.sides]);
}

async function pickExample(id) {
  const example = state.examples.find((e) => e.id === id);
  if (!example) return;
  setScenario(example.scenario, example.name, "");
  clearAnswer();
  if (await validate()) await run("resolve");
}

function availableOps() {
  const caps = { ...(state.capabilities || {}) };
  caps.compare = caps.odds;
  return Object.fromEntries(OPERATIONS.filter((op) => caps[op]).map((op) => [op, true]));
}

// `typed`: the text was typed or pasted, so it may now hold another scenario.
async function validate(typed = false) {
  const request = scenarioRequest();
  const key = JSON.stringify(request);
  const edited = Object.keys(request.overrides).length > 0;
  try {
    let answer = null;
    let refused = null;
    try {
      answer = await api("/api/validate", request);
    } catch (error) {
      // The edits were made for the text as it was: they may be all that does not fit.
      if (!(typed && edited && state.identity && error instanceof ApiError)) throw error;
      refused = error;
    }
    let renewed = false;
    if (typed && state.identity && (refused || scenarioIdentity(answer) !== state.identity)) {
      if (!edited) {
        renewed = true;
      } else {
        let bare;
        try {
          bare = await api("/api/validate", { ...request, overrides: {} });
        } catch (error) {
          throw refused || error;
        }
        if (scenarioIdentity(bare) !== state.identity) {
          answer = bare;
          renewed = true;
        } else if (refused) {
          throw refused;  // the same scenario: what is wrong is an edit
        }
      }
    }
    // The scenario changed while this answer was on its way: a newer one will follow.
    if (JSON.stringify(scenarioRequest()) !== key) return false;
    if (renewed) forgetEdits();
    state.validated = JSON.stringify(scenarioRequest());
    state.identity = scenarioIdentity(answer);
    state.capabilities = answer.capabilities;
    showScenarioError(null);
    $("ruleset").hidden = false;
    $("ruleset").textContent = answer.ruleset;
    buildForm(answer.fields);
    fillChoices(answer.choices);
    // As on entering the Compare tab: B starts with one change, of the new scenario.
    if (renewed && state.op === "compare") {
      const change = suggestedChange();
      if (change) state.changes.push(change);
    }
    buildChanges();
    showTabs();
    markStale();
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
  markStale();
  if (!error) {
    box.hidden = true;
    box.textContent = "";
    return;
  }
  box.hidden = false;
  box.textContent = spelled(error.message);
  const path = error.detail && error.detail.path;
  if (!path) return;
  // The same message beside the field that holds the bad value, when the form shows it.
  const input = document.querySelector(`.fields input[data-path="${CSS.escape(path)}"]`);
  if (input) {
    input.classList.add("invalid");
    const note = document.createElement("span");
    note.className = "field-error";
    note.textContent = spelled(error.detail.problem);
    input.after(note);
  }
}

// ── army lists: a unit of each list, built into a battle by the server ──────────────

const armies = { army: null, versus: null };

async function fileUpload(file) {
  // The bytes as base64: a .rosz is a zip, so never read as text.
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = "";
  for (let start = 0; start < bytes.length; start += 0x8000) {
    binary += String.fromCharCode.apply(null, bytes.subarray(start, start + 0x8000));
  }
  return { name: file.name, data: btoa(binary) };
}

function armyRequest() {
  const request = { army: armies.army };
  if (armies.versus) request.versus = armies.versus;
  return request;
}

function showArmyAnswer(error, answer) {
  const box = $("army-error");
  box.hidden = !error;
  box.textContent = error ? spelled(error.message) : "";
  const notes = $("army-notes");
  notes.replaceChildren();
  for (const note of (answer && answer.unmodelled) || []) {
    const item = document.createElement("li");
    writeParts(item, ["not modelled: ", user(note)]);
    notes.append(item);
  }
  notes.hidden = !notes.children.length;
}

function fillUnits(select, names) {
  select.replaceChildren(...names.map((name) => {
    const option = document.createElement("option");
    option.value = name;
    option.textContent = spelled(name);
    return option;
  }));
}

async function readArmies() {
  $("fight-row").hidden = true;
  if (!armies.army && !armies.versus) return;
  if (!armies.army) {
    showArmyAnswer({ message: "Now your list: a unit of each list fights." });
    return;
  }
  try {
    const answer = await api("/api/import", armyRequest());
    const [mine, theirs] = answer.armies;
    writeParts($("army-names"), answer.armies.flatMap((army, index) => [...(index ? [" against "] : []), user(army.file)]));
    fillUnits($("army-unit"), mine.units);
    if (theirs) fillUnits($("versus-unit"), theirs.units);
    $("fight-row").hidden = !theirs;
    showArmyAnswer(theirs ? null : { message: "Now their list: a unit of each list fights." }, answer);
  } catch (error) {
    showArmyAnswer(error);
  }
}

async function buildBattle() {
  const request = {
    ...armyRequest(),
    fight: `${$("army-unit").value}=${$("versus-unit").value}`,
    charger: $("charger").value,
    arc: $("arc").value,
  };
  try {
    const answer = await api("/api/import", request);
    showArmyAnswer(null, answer);
    setScenario(answer.text, answer.name, "yaml");
    $("example").value = "";
    showLinkDamaged(false);
    clearAnswer();
    if (await validate()) await run("resolve");
  } catch (error) {
    showArmyAnswer(error);
  }
}

// ── form fields: a number, a yes/no, a choice or a list of names ────────────────────

function fieldInput(field, value) {
  let input;
  if (field.kind === "boolean") {
    input = document.createElement("input");
    input.type = "checkbox";
    input.checked = Boolean(value);
  } else if (field.kind === "choice") {
    input = document.createElement("select");
    if (field.optional) input.append(new Option("— none —", ""));
    for (const choice of field.choices || []) input.append(new Option(spelled(choice), String(choice)));
    input.value = value === null || value === undefined ? "" : String(value);
  } else if (field.kind === "list") {
    input = document.createElement("input");
    input.type = "text";
    input.placeholder = "none";
    // A list from a hand-made link may be anything; the server says what is wrong with it.
    input.value = Array.isArray(value) ? value.join(", ") : value === null || value === undefined ? "" : String(value);
  } else {
    input = document.createElement("input");
    input.type = "number";
    input.step = field.kind === "integer" ? "1" : "any";
    if (field.min !== undefined) input.min = field.min;
    if (field.max !== undefined) input.max = field.max;
    if (field.optional) input.placeholder = "none";
    input.value = value === null || value === undefined ? "" : value;
  }
  input.dataset.path = field.path;
  input.dataset.kind = field.kind;
  return input;
}

function fieldValue(field, input) {
  if (field.kind === "boolean") return input.checked;
  if (field.kind === "choice") return input.value === "" ? null : input.value;
  if (field.kind === "list") return input.value.split(",").map((item) => item.trim()).filter(Boolean);
  return input.value === "" ? null : Number(input.value);
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

function fieldLabel(field, input, group) {
  const label = document.createElement("label");
  label.className = field.kind === "boolean" ? "field check" : "field";
  if (field.help) label.title = field.help;
  const name = document.createElement("span");
  name.className = "name";
  name.textContent = spelled(field.label);
  const path = document.createElement("small");
  path.className = "path";
  path.textContent = spelled(field.shown || field.path);
  if (field.kind === "boolean") label.append(input, name);
  else label.append(name, input);
  label.append(path);
  if (group) label.dataset.group = group;
  return label;
}

function buildForm(groups) {
  const form = $("form");
  form.replaceChildren();
  state.original = {};
  state.fields = [];
  for (const group of groups) {
    const box = document.createElement("div");
    box.className = "group";
    const title = document.createElement("h3");
    title.append(isolated(group.title), " ");
    if (group.path !== group.title) {
      const where = document.createElement("small");
      where.append(isolated(group.path));
      title.append(where);
    }
    const fields = document.createElement("div");
    fields.className = "fields";
    const more = document.createElement("div");
    more.className = "fields";
    for (const field of group.fields) {
      state.fields.push({ ...field, group: group.title });
      state.original[field.path] = field.value;
      const edited = Object.prototype.hasOwnProperty.call(state.overrides, field.path);
      const input = fieldInput(field, edited ? state.overrides[field.path] : field.value);
      input.classList.toggle("edited", edited);
      input.addEventListener("change", () => editField(field, input));
      // What the scenario leaves at the default is offered too, folded.
      (field.default && !edited ? more : fields).append(fieldLabel(field, input));
    }
    box.append(title, fields);
    if (more.children.length) {
      const fold = document.createElement("details");
      fold.className = "more";
      const summary = document.createElement("summary");
      summary.textContent = `${more.children.length} more, at their defaults`;
      fold.append(summary, more);
      box.append(fold);
    }
    form.append(box);
  }
  $("form-box").hidden = groups.length === 0;
}

async function editField(field, input) {
  const path = field.path;
  const value = fieldValue(field, input);
  if (same(value, state.original[path])) delete state.overrides[path];
  else state.overrides[path] = value;
  input.classList.toggle("edited", path in state.overrides);
  markStale();
  if (await validate()) await refresh();
}

// After an edit: a quick answer is worked out again at once; odds are marked old instead.
async function refresh() {
  markStale();
  if (state.answer && !["odds", "compare"].includes(state.answerOp) && isStale()) {
    await run(state.answerOp);
  }
}

function fillChoices(choices) {
  const fill = (select, names, preferred) => {
    const keep = select.value;
    select.replaceChildren(...names.map((name) => new Option(spelled(name), name)));
    if (names.includes(keep)) select.value = keep;
    else if (preferred !== undefined && names[preferred] !== undefined) select.value = names[preferred];
  };
  state.attacks = choices.attacks || [];
  state.units = choices.units;
  if (state.attacks.length) {
    // Only attacks the ruleset allows: the page opens on a legal one.
    fill($("attacker"), [...new Set(state.attacks.map((pair) => pair[0]))], 0);
  } else {
    fill($("attacker"), choices.units, 0);
  }
  fillTargets();
  for (const id of ["side", "threats-side", "reply-side"]) fill($(id), choices.sides, 0);
}

function fillTargets() {
  const select = $("target");
  const keep = select.value;
  const attacker = $("attacker").value;
  const names = state.attacks.length
    ? state.attacks.filter((pair) => pair[0] === attacker).map((pair) => pair[1])
    : (state.units || []).filter((name) => name !== attacker);
  select.replaceChildren(...names.map((name) => new Option(spelled(name), name)));
  if (names.includes(keep)) select.value = keep;
}

// ── variant B: the changes on top of A ─────────────────────────────────────────────────

function fieldAt(path) {
  return state.fields.find((field) => field.path === path);
}

function currentValue(path) {
  return Object.prototype.hasOwnProperty.call(state.overrides, path) ? state.overrides[path] : state.original[path];
}

function suggestedChange() {
  // A number one up from A's: legal wherever A's is, except at a maximum.
  const field = state.fields.find((f) => ["integer", "number"].includes(f.kind) && currentValue(f.path) !== null
    && (f.max === undefined || currentValue(f.path) < f.max)) || state.fields[0];
  if (!field) return null;
  const value = currentValue(field.path);
  return [field.path, typeof value === "number" ? value + 1 : value];
}

function buildChanges() {
  const box = $("changes");
  box.replaceChildren();
  state.changes.forEach((change, index) => {
    const row = document.createElement("div");
    row.className = "change";
    const pick = document.createElement("select");
    pick.className = "change-path";
    pick.setAttribute("aria-label", "What B changes");
    for (const field of state.fields) {
      pick.append(new Option(spelled(`${field.group}: ${field.label}`), field.path));
    }
    const field = fieldAt(change[0]);
    if (!field) {
      pick.append(new Option(spelled(change[0]), change[0]));
    }
    pick.value = change[0];
    const input = field ? fieldInput(field, change[1]) : document.createElement("input");
    input.classList.add("change-value");
    input.setAttribute("aria-label", "B's value");
    const was = document.createElement("small");
    was.className = "path";
    writeParts(was, [user(change[0]), " · A: ", user(JSON.stringify(currentValue(change[0])))]);
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "link";
    remove.textContent = "remove";
    pick.addEventListener("change", () => {
      const chosen = fieldAt(pick.value);
      state.changes[index] = [pick.value, chosen ? currentValue(pick.value) : null];
      buildChanges();
      changed();
    });
    input.addEventListener("change", () => {
      state.changes[index] = [change[0], field ? fieldValue(field, input) : input.value];
      changed();
    });
    remove.addEventListener("click", () => {
      state.changes.splice(index, 1);
      buildChanges();
      changed();
    });
    row.append(pick, input, remove, was);
    box.append(row);
  });
  if (!state.changes.length) {
    const none = document.createElement("p");
    none.className = "hint-line";
    none.textContent = "No change yet: B is the same as A.";
    box.append(none);
  }
}

function showTabs() {
  const ops = availableOps();
  ops.compare = Boolean(ops.odds);
  for (const tab of document.querySelectorAll(".tabs button")) tab.hidden = !ops[tab.dataset.op];
  if (!ops[state.op]) selectTab("resolve");
  $("roll-again").hidden = !(state.capabilities && state.capabilities.seed);
  $("seed").closest("label").hidden = !(state.capabilities && state.capabilities.seed);
}

function selectTab(op) {
  state.op = op;
  if (op === "compare" && !state.changes.length) {
    const change = suggestedChange();
    if (change) state.changes.push(change);
    buildChanges();
  }
  for (const tab of document.querySelectorAll(".tabs button")) {
    tab.setAttribute("aria-selected", String(tab.dataset.op === op));
  }
  for (const form of document.querySelectorAll("form.controls")) form.hidden = form.dataset.op !== op;
}

// ── answers ────────────────────────────────────────────────────────────────────────────

function clearAnswer() {
  state.answer = null;
  state.answerOp = null;
  $("result").classList.remove("stale");
  $("stale-note").hidden = true;
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
  $("status").textContent = op === "odds" || op === "compare" ? "Working out the odds…" : "Working…";
  const started = performance.now();
  const key = inputsKey(op);
  const current = () => inputsKey(op) === key;
  try {
    let answer;
    if (op === "compare") {
      const [a, b] = await Promise.all([
        api("/api/odds", operationRequest("compare")),
        api("/api/odds", variantRequest()).catch((error) => {
          if (error instanceof ApiError) error.variant = true;
          throw error;
        }),
      ]);
      answer = { ...a, compare: { a, b } };
    } else {
      answer = await api(`/api/${op}`, operationRequest(op));
    }
    if (!current()) return;  // an answer for inputs no longer on the page
    const seconds = ((performance.now() - started) / 1000).toFixed(2);
    state.answer = answer;
    state.answerOp = op;
    state.answerKey = key;
    state.answerFor = describeInputs(op);
    showScenarioError(null);
    showAnswer(answer, op);
    // The seed the scenario chose is now in its box: the same inputs, written out.
    if (op === "resolve") state.answerKey = inputsKey(op);
    writeParts($("status"), [op === "compare" ? "Comparison" : user(answer.title), ` — answered in ${seconds} s`]);
    await writeLink();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (!current()) return;
    $("status").textContent = "";
    // A bad scenario goes beside the scenario; a bad option (seed, runs…) beside the options.
    if (error.variant) {
      $("option-error").hidden = false;
      writeParts($("option-error"), ["Variant B: ", user(error.message)]);
    } else if (error.detail.source || (error.detail.path && !isOption(error.detail.path))) {
      showScenarioError(error);
    } else {
      $("option-error").hidden = false;
      $("option-error").textContent = spelled(error.message);
    }
  } finally {
    buttons.forEach((button) => { button.disabled = false; });
    markStale();
  }
}

// ── which inputs an answer is for, and whether they are still the page's ──────────────

// The edits in words, as parts for writeParts (the names in them are user text).
function describeEdits(overrides, lead = "with ") {
  const entries = Object.entries(overrides);
  if (!entries.length) return ["as written"];
  return entries.flatMap(([path, value], index) => {
    const field = fieldAt(path);
    const what = field ? [user(field.group), `: ${field.label}`] : [user(path)];
    return [index ? "; " : lead, ...what, " = ", user(JSON.stringify(value))];
  });
}

function describeInputs(op) {
  const request = operationRequest(op);
  const parts = [[`${TITLES[op]} for `, user(request.name), " ", ...describeEdits(request.overrides)]];
  if (op === "forecast") parts.push([user(request.attacker), " attacks ", user(request.target)]);
  if (["advise", "threats", "reply"].includes(op)) parts.push(["side ", user(request.side)]);
  if (op === "reply") parts.push([request.plan ? "to the planned turn" : "to each of the best attacks"]);
  if (op === "compare") parts.push(["B ", ...describeEdits(Object.fromEntries(state.changes))]);
  if (request.seed !== undefined) parts.push([`seed ${request.seed}`]);
  if (op === "odds" || op === "compare") {
    parts.push([`method ${request.method}`]);
    if (request.runs !== undefined) parts.push([`${request.runs} runs`]);
  }
  return parts.flatMap((part, index) => (index ? [" · ", ...part] : part));
}

function isStale() {
  return Boolean(state.answer) && inputsKey(state.answerOp) !== state.answerKey;
}

// Never an answer beside inputs it is not for, unmarked: an old one says so and offers
// to be worked out again.
function markStale() {
  if (!state.answer) return;
  const broken = !$("scenario-error").hidden;
  const stale = isStale() || broken;
  $("result").classList.toggle("stale", stale);
  $("stale-note").hidden = !stale;
  $("stale-text").textContent = broken
    ? "Old answer: it is for the scenario as it was before the error."
    : "Old answer: the inputs changed since it was worked out; it is for the inputs named above.";
  $("rerun").hidden = broken;
  $("rerun").textContent = `${TITLES[state.answerOp]}: work it out again`;
}

function changed() {
  markStale();
}

function isOption(path) {
  return ["seed", "runs", "method", "max_runs", "exact_budget", "sample_budget", "attacker",
    "target", "side", "plan", "precision", "confidence", "exact_tolerance"].includes(path.split(/[.[]/)[0]);
}

function showMethodOptions() {
  $("tolerance-box").hidden = $("method").value === "mc";
}

function showAnswer(answer, op) {
  $("result").hidden = false;
  writeParts($("answer-for"), ["This answer is for: ", ...state.answerFor, "."]);
  // The command names the file as the user typed it; a control in it is spelled out, as
  // the server's messages spell it.
  $("command").textContent = spelled(answer.command);
  const post = spelled([answer.command, ...answer.post_options].join(" "));
  $("copy-bbcode").title = `The same post: ${post} --format bbcode`;
  $("copy-markdown").title = `The same post: ${post} --format markdown`;
  $("footer").textContent = spelled(answer.footer);
  const limits = $("limits");
  limits.hidden = answer.limits.length === 0;
  limits.textContent = spelled(answer.limits.join(" "));
  const picture = $("picture");
  picture.hidden = !answer.picture || op === "compare";
  // An <img> never runs scripts, whatever the picture holds.
  if (answer.picture) $("picture-img").src = answer.picture;
  for (const id of ["copy-bbcode", "copy-markdown", "download-json"]) $(id).hidden = op === "compare";
  $("post-options").hidden = op === "compare";
  document.querySelector("#result .cli").hidden = op === "compare";  // each variant shows its own
  const report = $("report");
  const open = [...report.querySelectorAll("details[open][id]")].map((fold) => fold.id);
  if (op === "compare") {
    report.replaceChildren(compareView(answer.compare.a, answer.compare.b));
  } else if (op === "odds") {
    report.replaceChildren(oddsView(answer));
  } else {
    report.innerHTML = answer.html;  // escaped by the server's HTML renderer
  }
  for (const id of open) if ($(id)) $(id).open = true;
  frameTables(report);
  if (answer.seed !== null && answer.seed !== undefined && op === "resolve") {
    $("seed").value = answer.seed;
  }
}

// Wide tables scroll inside their own frame, which says so when there is more to see.
function frameTables(root) {
  for (const table of root.querySelectorAll("table")) {
    if (table.parentElement.classList.contains("table-frame")) continue;
    const frame = document.createElement("div");
    frame.className = "table-frame";
    const hint = document.createElement("p");
    hint.className = "scroll-hint";
    hint.textContent = "More columns: scroll the table sideways →";
    table.before(hint);
    table.before(frame);
    frame.append(table);
  }
  showScrollHints();
}

function showScrollHints() {
  for (const frame of document.querySelectorAll(".table-frame")) {
    const hint = frame.previousElementSibling;
    if (hint && hint.classList.contains("scroll-hint")) {
      hint.hidden = frame.scrollWidth <= frame.clientWidth + 1;
    }
  }
}

// ── odds: the headline, one big chart, the rest folded ─────────────────────────────────

function fromHtml(html) {
  const template = document.createElement("template");
  template.innerHTML = html;  // escaped by the server's HTML renderer
  return template.content;
}

// A metric's words: the label the answer gives it, when it gives one, else its key.
function metricLabel(answer, metric) {
  const found = answer.distributions.find((d) => d.metric === metric);
  return (found && found.label) || metric;
}

function chartedMetrics(answer) {
  return answer.distributions.filter((d) => d.values.length > 1);
}

function headlineMetric(answer) {
  const charted = chartedMetrics(answer).map((d) => d.metric);
  if (charted.includes(state.chartMetric)) return state.chartMetric;
  const first = answer.headline.find((row) => charted.includes(row.metric));
  return first ? first.metric : charted[0] || "";
}

function oddsView(answer) {
  const content = fromHtml(answer.html);
  const article = content.querySelector("article") || content;
  for (const figure of article.querySelectorAll("figure.fracas-chart-box")) figure.remove();
  const sections = [...article.querySelectorAll(":scope > section")];
  const keep = sections.filter((section) => ["Method", "Headline"].includes(section.querySelector("h3")?.textContent));
  const rest = sections.filter((section) => !keep.includes(section));
  const big = chartBox([{ name: "", answer }], "headline-chart");
  const headline = keep.find((section) => section.querySelector("h3")?.textContent === "Headline");
  (headline || keep[keep.length - 1] || article.firstChild)?.after(big);
  const charted = chartedMetrics(answer);
  if (charted.length > 1) {
    const fold = document.createElement("details");
    fold.className = "fold-more";
    fold.id = "all-charts";
    const summary = document.createElement("summary");
    summary.textContent = `Charts of every metric (${charted.length})`;
    const grid = document.createElement("div");
    grid.className = "chart-grid";
    for (const distribution of charted) {
      grid.append(smallChart([{ name: "", answer }], distribution.metric));
    }
    fold.append(summary, grid);
    big.after(fold);
  }
  if (rest.length) {
    const fold = document.createElement("details");
    fold.className = "fold-more";
    fold.id = "all-tables";
    const summary = document.createElement("summary");
    summary.textContent = `Tables of every metric (${rest.length})`;
    fold.append(summary, ...rest);
    const footer = article.querySelector(":scope > .fracas-footer");
    if (footer) footer.before(fold);
    else article.append(fold);
  }
  const box = document.createElement("div");
  box.append(content);
  return box;
}

// The big chart, with its metric and its view (exactly / at least / at most) to choose.
function chartBox(series, id) {
  const box = document.createElement("figure");
  box.className = "chart-box";
  box.id = id;
  const answer = series[0].answer;
  const metric = headlineMetric(answer);
  const tools = document.createElement("div");
  tools.className = "chart-tools";
  const choose = document.createElement("label");
  choose.className = "inline";
  choose.textContent = "Chart of ";
  const select = document.createElement("select");
  select.id = `${id}-metric`;
  for (const distribution of chartedMetrics(answer)) {
    select.append(new Option(spelled(metricLabel(answer, distribution.metric)), distribution.metric));
  }
  select.value = metric;
  select.addEventListener("change", () => {
    state.chartMetric = select.value;
    redrawCharts();
    writeLink();
  });
  choose.append(select);
  const numeric = series.every((one) => one.answer.distributions.find((d) => d.metric === metric)?.numeric);
  tools.append(choose, viewButtons(numeric));
  box.append(tools);
  // Drawn at the width it is shown at, so that its words stay readable on a phone.
  const room = Math.max(300, Math.min(720, ($("report").clientWidth || 640) - 4));
  const drawn = drawChart(series, metric, { width: room, height: room < 500 ? 260 : 300 });
  if (drawn) box.append(drawn);
  return box;
}

function viewButtons(numeric) {
  const group = document.createElement("div");
  group.className = "views";
  group.setAttribute("role", "group");
  group.setAttribute("aria-label", "Chance of the value");
  for (const [view, words] of Object.entries(VIEWS)) {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.view = view;
    button.textContent = words;
    button.setAttribute("aria-pressed", String((numeric ? state.view : "exactly") === view));
    // "At least 'Empire'" means nothing: the outcomes that are not numbers have one view.
    button.disabled = !numeric && view !== "exactly";
    if (button.disabled) button.title = "Only for numbers";
    button.addEventListener("click", () => {
      state.view = view;
      redrawCharts();
      writeLink();
    });
    group.append(button);
  }
  return group;
}

function smallChart(series, metric) {
  const box = document.createElement("figure");
  box.className = "chart-small";
  const drawn = drawChart(series, metric, { width: 420, height: 200 });
  if (drawn) box.append(drawn);
  return box;
}

function redrawCharts() {
  if (state.answer) showAnswer(state.answer, state.answerOp);
  markStale();
}

// One metric of one or two answers as bars: the chance of exactly, at least or at most
// each value (at least and at most for numbers only), with both axes named.
function drawChart(series, metric, size) {
  const found = series.map((one) => one.answer.distributions.find((d) => d.metric === metric));
  if (found.some((d) => !d)) return null;
  const numeric = found.every((d) => d.numeric);
  const view = numeric ? state.view : "exactly";
  const labels = [];
  const order = new Map();
  for (const distribution of found) {
    for (const entry of distribution.values) {
      if (!order.has(entry.label)) { order.set(entry.label, entry.value); labels.push(entry.label); }
    }
  }
  if (numeric) labels.sort((a, b) => Number(order.get(a)) - Number(order.get(b)));
  const chances = found.map((distribution) => {
    const exactly = new Map(distribution.values.map((entry) => [entry.label, entry]));
    let running = 0;
    const up = labels.map((label) => { running += exactly.has(label) ? exactly.get(label).p : 0; return running; });
    return labels.map((label, index) => {
      const entry = exactly.get(label);
      if (view === "at_most") return { p: up[index] };
      if (view === "at_least") return { p: 1 - (index ? up[index - 1] : 0) };
      return entry ? { p: entry.p, low: entry.low, high: entry.high } : { p: 0 };
    });
  });
  const { width, height } = size;
  const left = 52, right = 12, top = 28, bottom = 56;
  const plotW = width - left - right, plotH = height - top - bottom;
  const highest = Math.max(...chances.flat().map((c) => Math.max(c.p, c.high || 0)), 0.01);
  const topValue = [0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1].find((t) => t >= highest) || 1;
  const svg = el("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart", role: "img" });
  const words = { exactly: "exactly", at_least: "at least", at_most: "at most" }[view];
  const heading = `${metricLabel(series[0].answer, metric)}: ${words}`;
  svg.append(el("title", {}, `${metricLabel(series[0].answer, metric)}: the chance of ${words} each value`));
  svg.append(el("text", { x: left, y: 16, class: "chart-title" }, heading));
  for (const fraction of [0, 0.25, 0.5, 0.75, 1]) {
    const y = top + plotH - fraction * plotH;
    svg.append(el("line", { x1: left, x2: left + plotW, y1: y, y2: y, class: "grid" }));
    svg.append(el("text", { x: left - 5, y: y + 4, "text-anchor": "end", class: "tick" },
      `${+(topValue * fraction * 100).toFixed(1)}%`));
  }
  const slot = plotW / labels.length;
  const barW = Math.max(1, (slot * 0.8) / series.length);
  const every = Math.max(1, Math.ceil(labels.length / Math.floor(plotW / 34)));
  labels.forEach((label, index) => {
    series.forEach((one, which) => {
      const chance = chances[which][index];
      const h = (chance.p / topValue) * plotH;
      const x = left + index * slot + slot * 0.1 + which * barW;
      const bar = el("rect", { x, y: top + plotH - h, width: barW, height: h, class: `bar s${which}` });
      const name = one.name ? `${one.name}: ` : "";
      bar.append(el("title", {}, `${name}${metricLabel(one.answer, metric)} ${words} ${label}: ${percent(chance.p)}`));
      svg.append(bar);
      if (chance.low !== undefined && chance.high > chance.low) {
        const cx = x + barW / 2;
        const y1 = top + plotH - (chance.low / topValue) * plotH, y2 = top + plotH - (chance.high / topValue) * plotH;
        svg.append(el("path", { d: `M${cx} ${y1}V${y2}M${cx - 2} ${y1}h4M${cx - 2} ${y2}h4`, class: "interval" }));
      }
    });
    if (index % every === 0) {
      svg.append(el("text", { x: left + (index + 0.5) * slot, y: top + plotH + 14, "text-anchor": "middle", class: "tick" }, label));
    }
  });
  svg.append(el("line", { x1: left, x2: left + plotW, y1: top + plotH, y2: top + plotH, class: "axis" }));
  svg.append(el("text", { x: left + plotW / 2, y: height - 22, "text-anchor": "middle", class: "axis-title" },
    metricLabel(series[0].answer, metric)));
  svg.append(el("text", { x: 12, y: top + plotH / 2, "text-anchor": "middle", class: "axis-title",
    transform: `rotate(-90 12 ${top + plotH / 2})` }, `chance (${words})`));
  if (series.length > 1) {
    series.forEach((one, which) => {
      const x = left + which * 140;
      svg.append(el("rect", { x, y: height - 12, width: 10, height: 10, class: `bar s${which}` }));
      svg.append(el("text", { x: x + 14, y: height - 3, class: "tick" }, one.name));
    });
  }
  return svg;
}

function el(name, attributes, text) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = spelled(text);  // text, never markup; SVG text cannot isolate
  return node;
}

function percent(p) {
  return `${(p * 100).toFixed(p > 0 && p < 0.001 ? 3 : 1)}%`;
}

// ── compare: A and B, the difference, one table and one chart ──────────────────────────

function shown(row) {
  return row.kind === "probability" ? percent(row.value) : (+row.value.toFixed(2)).toString();
}

function difference(a, b) {
  if (!a || !b) return "—";
  const delta = b.value - a.value;
  const sign = delta > 0 ? "+" : delta < 0 ? "−" : "±";
  const size = Math.abs(delta);
  const text = a.kind === "probability" ? `${sign}${(size * 100).toFixed(1)} pts` : `${sign}${+size.toFixed(2)}`;
  return overlap(a, b) ? `${text} *` : text;
}

// Sampled answers: a difference smaller than the error bars may be the dice, not the change.
function overlap(a, b) {
  const sampled = a.low !== a.high || b.low !== b.high;
  return sampled && b.value !== a.value && a.low <= b.high && b.low <= a.high;
}

function compareView(a, b) {
  const box = document.createElement("div");
  box.className = "fracas-report compare";
  const heading = document.createElement("h2");
  writeParts(heading, ["Compare — ", user(a.title.replace(/^Odds — /, ""))]);
  const who = document.createElement("dl");
  who.className = "variants";
  const aDesc = describeEdits(operationRequest("compare").overrides);
  const bDesc = state.changes.length
    ? describeEdits(Object.fromEntries(state.changes), "A with ")
    : ["the same as A"];
  for (const [term, words, command] of [["A", aDesc, a.command], ["B", bDesc, b.command]]) {
    const dt = document.createElement("dt");
    dt.textContent = term;
    const dd = document.createElement("dd");
    writeParts(dd, words);
    const code = document.createElement("code");
    code.textContent = spelled(command);
    dd.append(document.createElement("br"), code);
    who.append(dt, dd);
  }
  const table = document.createElement("table");
  table.className = "compare-table";
  const head = table.createTHead().insertRow();
  for (const [words, numeric] of [["question", false], ["A", true], ["B", true], ["B − A", true]]) {
    const th = document.createElement("th");
    th.textContent = words;
    if (numeric) th.className = "num";
    head.append(th);
  }
  const body = table.createTBody();
  const bRows = new Map(b.headline.map((row) => [row.label, row]));
  const labels = [...a.headline.map((row) => row.label), ...b.headline.map((row) => row.label).filter((l) => !a.headline.some((r) => r.label === l))];
  const aRows = new Map(a.headline.map((row) => [row.label, row]));
  let missing = false;
  let close = false;
  for (const label of labels) {
    const tr = body.insertRow();
    const ra = aRows.get(label), rb = bRows.get(label);
    missing ||= !ra || !rb;
    close ||= Boolean(ra && rb && overlap(ra, rb));
    for (const [text, numeric] of [[label, false], [ra ? shown(ra) : "—", true], [rb ? shown(rb) : "—", true], [difference(ra, rb), true]]) {
      const td = tr.insertCell();
      td.textContent = spelled(text);
      if (numeric) td.className = "num";
    }
  }
  const methods = document.createElement("p");
  methods.className = "hint-line";
  methods.textContent = `A: ${a.method}; B: ${b.method}.` + (a.method !== "exact" || b.method !== "exact"
    ? " Sampled numbers carry their error bars: a small difference may be chance." : "")
    + (close ? " * : the two intervals overlap, so this difference may be chance; more runs tell." : "")
    + (missing ? " — : not in that variant's headline (its headline leaves out what never happened)." : "");
  box.append(heading, who, table, methods);
  box.append(chartBox([{ name: "A", answer: a }, { name: "B", answer: b }], "compare-chart"));
  return box;
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
  link.download = `${stem}.${state.answerOp}.json`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

// ── permalinks: the whole scenario and the options, compressed into the fragment ───────

function linkState() {
  return {
    v: LINK_VERSION,
    op: state.answerOp || state.op,
    name: $("name").value,
    format: $("format").value,
    scenario: $("text").value,
    overrides: state.overrides,
    options: operationRequest(state.answerOp || state.op),
    changes: state.changes,
    view: state.view,
    chart: state.chartMetric,
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

const isRecord = (value) => typeof value === "object" && value !== null && !Array.isArray(value);
const isPath = (value) => typeof value === "string" && value !== "";

// What a link holds, checked: anyone can write a fragment, and a link cut short or edited
// by hand must not reach the code below as something it never wrote. Null when the shape
// is wrong; options it does not know are left to the defaults by openLink.
function readLink(saved) {
  if (!isRecord(saved) || saved.v !== LINK_VERSION) return null;
  if (typeof saved.scenario !== "string" || saved.scenario === "") return null;
  for (const key of ["name", "format", "op", "view", "chart"]) {
    if (saved[key] !== undefined && typeof saved[key] !== "string") return null;
  }
  for (const key of ["overrides", "options"]) {
    if (saved[key] !== undefined && !isRecord(saved[key])) return null;
  }
  const changes = saved.changes === undefined ? [] : saved.changes;
  if (!Array.isArray(changes)) return null;
  if (!changes.every((change) => Array.isArray(change) && change.length === 2 && isPath(change[0]))) return null;
  return { ...saved, changes, overrides: saved.overrides || {}, options: saved.options || {} };
}

// A choice the select offers, or the select left as it is (its default).
function choose(select, value) {
  if ([...select.options].some((option) => option.value === value)) select.value = value;
}

async function openLink() {
  const match = /^#s=([A-Za-z0-9_-]+)$/.exec(location.hash);
  if (!match) return "none";
  let saved = null;
  try {
    saved = readLink(JSON.parse(await unsqueeze(match[1])));
  } catch {
    saved = null;  // not base64, not deflate, not JSON: damaged all the same
  }
  if (!saved) return "damaged";
  setScenario(saved.scenario, saved.name || "scenario.yaml", ["yaml", "json", "toml"].includes(saved.format) ? saved.format : "");
  const bundled = state.examples.find((e) => e.scenario === saved.scenario && e.name === saved.name);
  $("example").value = bundled ? bundled.id : "";
  state.overrides = saved.overrides;
  state.changes = saved.changes;
  if (Object.prototype.hasOwnProperty.call(VIEWS, saved.view)) state.view = saved.view;
  state.chartMetric = saved.chart || "";
  const options = saved.options;
  const odds = saved.op === "odds" || saved.op === "compare";
  const count = (value, least) => Number.isSafeInteger(value) && value >= least;
  if (count(options.seed, 0)) $(odds ? "odds-seed" : "seed").value = options.seed;
  choose($("method"), options.method);
  if (count(options.runs, 1)) $("runs").value = options.runs;
  if (Number.isFinite(options.exact_tolerance)) $("exact-tolerance").value = options.exact_tolerance;
  showMethodOptions();
  choose($("forum"), options.forum);
  $("fold").checked = options.fold === true;
  $("ascii").checked = options.ascii_only === true;
  if (await validate()) {
    choose($("attacker"), options.attacker);
    fillTargets();
    choose($("target"), options.target);
    buildChanges();
    for (const id of ["side", "threats-side", "reply-side"]) choose($(id), options.side);
    $("reply-plan").checked = options.plan === true;
    await run(OPERATIONS.includes(saved.op) && availableOps()[saved.op] ? saved.op : "resolve");
  }
  return "opened";
}

function showLinkDamaged(damaged) {
  $("link-error").hidden = !damaged;
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
  $("example").addEventListener("change", (event) => {
    showLinkDamaged(false);
    pickExample(event.target.value);
  });
  $("upload").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (!file) return;
    showLinkDamaged(false);
    setScenario(await file.text(), file.name, "");
    $("example").value = "";
    clearAnswer();
    if (await validate()) await run("resolve");
    event.target.value = "";
  });
  for (const [id, key] of [["army-file", "army"], ["versus-file", "versus"]]) {
    $(id).addEventListener("change", async (event) => {
      const file = event.target.files[0];
      if (!file) return;
      armies[key] = await fileUpload(file);
      event.target.value = "";
      await readArmies();
    });
  }
  $("build-battle").addEventListener("click", buildBattle);
  const revalidate = debounce(async () => { if (await validate(true)) await refresh(); }, 350);
  $("text").addEventListener("input", () => {
    $("example").value = "";
    showLinkDamaged(false);
    markStale();
    revalidate();
  });
  $("name").addEventListener("change", async () => { if (await validate()) await refresh(); });
  $("format").addEventListener("change", async () => { if (await validate()) await refresh(); });
  $("reset-edits").addEventListener("click", async () => {
    state.overrides = {};
    if (await validate()) await refresh();
  });
  $("attacker").addEventListener("change", () => { fillTargets(); markStale(); });
  for (const id of ["target", "side", "threats-side", "reply-side", "reply-plan", "seed", "odds-seed",
    "runs", "method", "exact-tolerance"]) {
    $(id).addEventListener("input", markStale);
    $(id).addEventListener("change", markStale);
  }
  $("rerun").addEventListener("click", () => run(state.answerOp));
  $("add-change").addEventListener("click", () => {
    const change = suggestedChange();
    if (change) state.changes.push(change);
    buildChanges();
    changed();
  });
  window.addEventListener("resize", showScrollHints);
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
      markStale();
      if (state.answer && !["odds", "compare"].includes(state.answerOp)) run(state.answerOp);
    });
  }
}

async function start() {
  wire();
  const [rulesets, examples] = await Promise.all([api("/api/rulesets"), api("/api/examples")]);
  for (const ruleset of rulesets) state.rulesets.set(ruleset.name, ruleset);
  state.examples = examples;
  fillExamples();
  const link = await openLink();
  if (link === "opened") return;
  // A damaged link says so once, and the page starts as if opened without it.
  showLinkDamaged(link === "damaged");
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
