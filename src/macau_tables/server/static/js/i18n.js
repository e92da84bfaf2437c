// The page's language and texts. The server puts the catalog's texts the page needs
// in <script type="application/json" id="page-texts"> (server/i18n.py texts_for); t(key, params)
// fills their {placeholders} as the Python catalog does (str.format: {{ and }} are braces;
// {kind:term} shows a game word in the page's language, from <script id="page-terms">;
// {amount:money} reads an integer of minor units in major units, as money() below; {path:field}
// names a request's field in words, as fieldWord() below).

const texts = readJson("page-texts") || {};
const terms = readJson("page-terms") || {};

/** JSON from a <script type="application/json" id=...> of the page, or null. */
export function readJson(id) {
  const node = document.getElementById(id);
  if (!node) return null;
  try {
    return JSON.parse(node.textContent || "null");
  } catch {
    return null;
  }
}

/** The data the server rendered for the page's script (pages.render(data=...)). */
export function pageData() {
  return readJson("page-data");
}

/** The page's language: one of the catalog's (messages.LANGUAGES: "en", "zh-Hant" …). */
export function lang() {
  return document.documentElement.lang || "en";
}

/**
 * A word of the games' vocabulary ("banker_pair", "box 3", "command baccarat.Correct") in the
 * page's language, as the server's messages.terms.term: the words and numbered places of the
 * catalog's glossary the server put in the page (<script id="page-terms">, server/i18n.py
 * terms_for; a place's {0} is its group as it is, {0:term} the group as a word); the value
 * itself when unknown.
 */
export function term(value) {
  const text = String(value);
  const words = terms.words || {};
  if (Object.hasOwn(words, text)) return words[text];
  for (const [pattern, template] of terms.places || []) {
    const m = new RegExp(`^(?:${pattern})$`).exec(text);
    if (m) return template.replace(/\{(\d+)(:term)?\}/g, (_, i, spec) => (spec ? term(m[Number(i) + 1]) : m[Number(i) + 1] ?? ""));
  }
  return text;
}

/**
 * The field a JSON path of a request names ("$.command.card": card) in words, as the server's
 * messages.terms.field_word: the glossary's "field <name>", the request itself for "$", "a
 * field of the request" for a name it lacks — never the path.
 */
export function fieldWord(path) {
  const words = terms.words || {};
  const names = String(path).match(/[A-Za-z_][A-Za-z0-9_]*/g) || [];
  if (!names.length) return words["field $"] ?? String(path);
  return words[`field ${names[names.length - 1]}`] ?? words.field ?? String(path);
}

/**
 * The catalog text of `key` in the page's language with `params` filled in; a placeholder
 * with the spec `term` ("{kind:term}") shows its value in the page's language (term()), one
 * with the spec `money` ("{amount:money}") an integer of minor units in major units (money());
 * the params stay integers.
 */
export function t(key, params = {}) {
  const template = texts[key];
  if (template === undefined) return key;
  return template.replace(/\{\{|\}\}|\{(\w+)(?::(\w+))?\}/g, (match, name, spec) => {
    if (match === "{{") return "{";
    if (match === "}}") return "}";
    if (!(name in params)) return match;
    if (spec === "term") return term(params[name]);
    if (spec === "field") return fieldWord(params[name]);
    if (spec === "money") return isMinor(params[name]) ? money(params[name]) : String(params[name]);
    return String(params[name]);
  });
}

/** Whether the page has a text for `key`. */
export function has(key) {
  return key in texts;
}

/** Whether `value` is an integer amount of minor units (a safe integer, a BigInt or digits). */
function isMinor(value) {
  if (typeof value === "bigint") return true;
  if (typeof value === "number") return Number.isSafeInteger(value);
  return typeof value === "string" && /^-?\d+$/.test(value);
}

/**
 * Minor units (an integer) written in major units with two decimals and comma thousands, the
 * same text in every language as macau_tables.money.format_minor (1234567 reads 12,345.67):
 * integer arithmetic only, no float.
 */
export function money(minor) {
  const value = BigInt(minor);
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const whole = (abs / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const cents = (abs % 100n).toString().padStart(2, "0");
  return `${negative ? "-" : ""}${whole}.${cents}`;
}

/** The Intl locale of the page's language (the glossary's [locale]: en-GB, zh-Hant-MO …). */
export function locale() {
  return terms.locale || "en-GB";
}

/** A date and time (ISO text) in the page's language (its locale()). */
export function dateTime(iso) {
  if (!iso) return "";
  const when = new Date(iso);
  if (Number.isNaN(when.getTime())) return String(iso);
  return new Intl.DateTimeFormat(locale(), {
    dateStyle: "medium",
    timeStyle: "medium",
  }).format(when);
}

/** Set the text of element `id` (or an element) to the text of `key`. */
export function setText(target, key, params = {}) {
  const node = typeof target === "string" ? document.getElementById(target) : target;
  if (node) node.textContent = t(key, params);
}
