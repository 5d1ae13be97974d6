// chaintag serve: the page. Posts {"text", "lang", "tokenized"} to /tag and draws the answer.
// Every piece of text goes in through textContent or text nodes, never parsed as HTML, so nothing in it is markup.
"use strict";

const PALETTE = 8;
const colours = new Map(); // span label -> palette index, in the order of the model's labels
let spanScheme = null; // null: the model's labels make no spans (POS tags): show each token's label

function $(id) { return document.getElementById(id); }

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function colour(label) {
  if (!colours.has(label)) colours.set(label, colours.size % PALETTE);
  return "c" + colours.get(label);
}

function spanType(label) { // B-PER, I-PER, PER-B, S-LOC ... -> PER, LOC; O -> null
  if (label === "O" || label === "") return null;
  const m = /^[A-Z]-(.+)$/.exec(label) || /^(.+)-[A-Z]$/.exec(label);
  return m ? m[1] : label;
}

function formatConfidence(c) { return c === null || c === undefined ? "" : c.toFixed(2); }

// "probability", "relative" (the perceptron's and MIRA's scores: not probabilities) or null (from /health)
let confidenceKind = "probability";
function shownConfidence(span) {
  return confidenceKind === "probability" && span.confidence !== undefined ? span.confidence : null;
}
let described = null; // the /health request, which the first answer waits for

async function describeModel() {
  try {
    const res = await fetch("/health", { headers: { Accept: "application/json" } });
    const info = await res.json();
    spanScheme = info.span_scheme;
    confidenceKind = info.confidence === undefined ? "probability" : info.confidence;
    if (spanScheme) info.labels.forEach((lab) => { const t = spanType(lab); if (t) colour(t); });
    $("show-labels").checked = !spanScheme;
    const parts = [info.model || "model", info.algorithm, info.labels.length + " labels"];
    if (spanScheme) parts.push("spans: " + Array.from(colours.keys()).join(", ") + " (" + spanScheme + ")");
    else parts.push("token labels, no spans");
    if (spanScheme && confidenceKind === "relative") parts.push("confidence: relative scores, not probabilities");
    $("model").textContent = parts.join(" \u00b7 ");
    if (!info.accepts_text) showError("This model reads more than the words, so it cannot tag raw text.");
  } catch (err) {
    $("model").textContent = "could not read /health: " + err;
  }
}

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = !message;
}

function tokenNode(tok) {
  const node = el("span", "tok");
  node.append(el("span", "w", tok.text), el("span", "tag", tok.label === null ? "" : tok.label));
  return node;
}

function spanNode(span) {
  const mark = el("mark", "span " + colour(span.label));
  mark.dataset.label = span.label;
  const c = shownConfidence(span);
  if (c !== null) mark.dataset.confidence = String(c);
  mark.title = span.label + (c === null ? "" : ", confidence " + formatConfidence(c));
  return mark;
}

function badgeNode(span) {
  const c = shownConfidence(span);
  const text = span.label + (c === null ? "" : " " + formatConfidence(c));
  const badge = el("span", "badge", text);
  badge.setAttribute("aria-label", span.label + (c === null ? "" : ", confidence " + formatConfidence(c)));
  return badge;
}

// The text with its spans marked: tokens in order, the characters between them kept as they are.
// Offsets count Unicode code points (as Python's strings do), not the UTF-16 units of a JS string.
function draw(doc) {
  const chars = Array.from(doc.text);
  const out = $("result");
  out.replaceChildren();
  out.classList.toggle("labels", $("show-labels").checked);
  const spans = doc.spans.slice().sort((a, b) => a.start - b.start);
  let pos = 0, k = 0, mark = null;
  for (const tok of doc.tokens) {
    while (!mark && k < spans.length && spans[k].start < tok.start) k++; // a span off the token grid
    if (tok.start > pos) (mark || out).append(chars.slice(pos, tok.start).join(""));
    if (!mark && k < spans.length && spans[k].start === tok.start) {
      mark = spanNode(spans[k]);
      out.append(mark);
    }
    (mark || out).append(tokenNode(tok));
    pos = tok.end;
    if (mark && tok.end >= spans[k].end) {
      mark.append(badgeNode(spans[k]));
      mark = null;
      k++;
    }
  }
  if (pos < chars.length) out.append(chars.slice(pos).join(""));

  const legend = $("legend");
  legend.replaceChildren();
  for (const label of new Set(spans.map((s) => s.label))) legend.append(el("mark", colour(label), label));

  const body = $("spans").tBodies[0];
  body.replaceChildren();
  for (const s of spans) {
    const row = el("tr");
    const c = confidenceKind === "relative" && s.confidence !== null ? formatConfidence(s.confidence) + " (relative)"
      : formatConfidence(s.confidence);
    row.append(el("td", "", s.text), el("td", "", s.label), el("td", "", c));
    body.append(row);
  }
  $("spans").hidden = spans.length === 0;
  const n = (x, word) => x + " " + word + (x === 1 ? "" : "s");
  $("summary").textContent = [n(doc.sentences.length, "sentence"), n(doc.tokens.length, "token"),
    spanScheme ? n(spans.length, "span") : "no spans (this model labels tokens)"].join(", ");
  $("output").hidden = false;
}

async function tag(event) {
  event.preventDefault();
  const button = $("tag");
  button.disabled = true;
  showError("");
  if (described) await described; // what a confidence is, before the first answer is drawn
  try {
    const res = await fetch("/tag", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ text: $("text").value, lang: $("lang").value, tokenized: $("tokenized").checked }),
    });
    const answer = await res.json();
    if (!res.ok) throw new Error(answer.error || "HTTP " + res.status);
    draw(answer);
  } catch (err) {
    showError(err.message || String(err));
  } finally {
    button.disabled = false;
  }
}

document.addEventListener("DOMContentLoaded", () => {
  $("form").addEventListener("submit", tag);
  $("text").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) $("form").requestSubmit();
  });
  $("show-labels").addEventListener("change", (e) => $("result").classList.toggle("labels", e.target.checked));
  described = describeModel();
});
