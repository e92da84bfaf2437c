// The page's language and texts (issue 11). The server puts the catalog's texts the page needs
// in <script type="application/json" id="page-texts"> (server/i18n.py texts_for); t(key, params)
// fills their {placeholders} as the Python catalog does (str.format: {{ and }} are braces).

const texts = readJson("page-texts") || {};

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

/** The page's language: "en" or "zh-Hant". */
export function lang() {
  return document.documentElement.lang || "en";
}

/** The catalog text of `key` in the page's language with `params` filled in. */
export function t(key, params = {}) {
  const template = texts[key];
  if (template === undefined) return key;
  return template.replace(/\{\{|\}\}|\{(\w+)(?::\w+)?\}/g, (match, name) => {
    if (match === "{{") return "{";
    if (match === "}}") return "}";
    return name in params ? String(params[name]) : match;
  });
}

/** Whether the page has a text for `key`. */
export function has(key) {
  return key in texts;
}

const grouping = () => new Intl.NumberFormat(lang() === "zh-Hant" ? "zh-Hant-MO" : "en", {
  useGrouping: true,
  maximumFractionDigits: 0,
});

/**
 * Minor units (an integer) written in major units with two decimals, like
 * macau_tables.money.format_minor: integer arithmetic only, no float.
 */
export function money(minor) {
  const value = BigInt(minor);
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const whole = abs / 100n;
  const cents = (abs % 100n).toString().padStart(2, "0");
  return `${negative ? "-" : ""}${grouping().format(whole)}.${cents}`;
}

/** A date and time (ISO text) in the page's language. */
export function dateTime(iso) {
  if (!iso) return "";
  const when = new Date(iso);
  if (Number.isNaN(when.getTime())) return String(iso);
  return new Intl.DateTimeFormat(lang() === "zh-Hant" ? "zh-Hant-MO" : "en-GB", {
    dateStyle: "medium",
    timeStyle: "medium",
  }).format(when);
}

/** Set the text of element `id` (or an element) to the text of `key`. */
export function setText(target, key, params = {}) {
  const node = typeof target === "string" ? document.getElementById(target) : target;
  if (node) node.textContent = t(key, params);
}
