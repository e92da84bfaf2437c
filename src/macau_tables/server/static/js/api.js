// fetch for the pages: JSON in and out, the session's CSRF token on every
// state-changing request (the <meta name="csrf-token"> of base.html), the page's language in
// Accept-Language so that refusals come back in it ({"error": {"key", "params", "text",
// "rule"}}), idempotency keys that a retry re-uses, and a page that signs in again when its
// session has ended.

import { lang, t } from "./i18n.js";
import { el } from "./tables_info.js";

/** A refusal or a failure, with the message key and the text in the page's language. */
export class ApiError extends Error {
  constructor(status, error) {
    super(error.text || error.key);
    this.status = status;
    this.key = error.key;
    this.params = error.params || {};
    this.rule = error.rule || null;
    this.text = error.text || error.key;
  }
}

function meta(name) {
  const node = document.querySelector(`meta[name="${name}"]`);
  return node ? node.getAttribute("content") || "" : "";
}

/** The CSRF token of the page's session ("" when signed out). */
export function csrfToken() {
  return meta("csrf-token");
}

/** Keep the CSRF token of a new session (after signing in without reloading). */
export function setCsrfToken(token) {
  const node = document.querySelector('meta[name="csrf-token"]');
  if (node) node.setAttribute("content", token || "");
}

/** A fresh idempotency key (random, 128 bits; works outside secure contexts too). */
export function newKey() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

const SIGNED_OUT = new Set(["auth.session_expired", "auth.session_unknown", "auth.unauthenticated"]);

function toLogin() {
  const here = location.pathname + location.search;
  location.assign(`/login?${new URLSearchParams({ next: here, reason: "expired" })}`);
}

/**
 * Call the API. `options`: method ("GET"), body (sent as JSON), query (an object), as
 * ("json" | "text" | "blob"), stayOnSignOut (do not go to the login page on a 401).
 * Resolves with the answer; rejects with an ApiError (its text in the page's language).
 */
export async function api(path, options = {}) {
  const method = (options.method || "GET").toUpperCase();
  const url = new URL(path, location.origin);
  for (const [k, v] of Object.entries(options.query || {})) {
    if (v !== undefined && v !== null && v !== "") url.searchParams.set(k, String(v));
  }
  const headers = { Accept: "application/json", "Accept-Language": lang() };
  if (!["GET", "HEAD", "OPTIONS"].includes(method) && csrfToken()) {
    headers["X-CSRF-Token"] = csrfToken();
  }
  let body;
  if (options.body !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(options.body);
  }
  let response;
  try {
    response = await fetch(url, { method, headers, body, credentials: "same-origin" });
  } catch {
    throw new ApiError(0, { key: "pages.network_error", text: t("pages.network_error") });
  }
  if (!response.ok) {
    let error = null;
    try {
      error = (await response.json()).error || null;
    } catch {
      error = null;
    }
    error = error || {
      key: "pages.http_error",
      params: { status: response.status },
      text: t("pages.http_error", { status: response.status }),
    };
    if (response.status === 401 && SIGNED_OUT.has(error.key) && !options.stayOnSignOut && meta("signed-in")) {
      toLogin();
    }
    throw new ApiError(response.status, error);
  }
  const as = options.as || "json";
  if (as === "text") return response.text();
  if (as === "blob") return response.blob();
  if (response.status === 204) return null;
  return response.json();
}

/**
 * A state-changing request with an idempotency key in its body (`key` field, default
 * "idempotency_key"): the same key is re-used if the request is retried after a network
 * failure, so a double click or a retry never acts twice.
 */
export async function send(path, body, options = {}) {
  const field = options.keyField || "idempotency_key";
  const payload = { ...body, [field]: body[field] || newKey() };
  let lastError;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      return await api(path, { ...options, method: options.method || "POST", body: payload });
    } catch (err) {
      lastError = err;
      if (!(err instanceof ApiError) || err.status !== 0) throw err;
      await new Promise((resolve) => setTimeout(resolve, 300 * (attempt + 1)));
    }
  }
  throw lastError;
}

/** Show `err` (an ApiError or any error) in the page's alert area, or in `where`. */
export function showError(err, where) {
  const node = where || document.getElementById("page-error");
  if (!node) return;
  const text = err instanceof ApiError ? err.text : t("pages.network_error");
  node.textContent = err && err.rule ? `${text} (${err.rule})` : text;
  node.hidden = false;
  if (!(err instanceof ApiError)) console.warn(err);
}

/** Clear the alert area (or `where`). */
export function clearError(where) {
  const node = where || document.getElementById("page-error");
  if (node) {
    node.textContent = "";
    node.hidden = true;
  }
}

/** Say `text` in the page's status area (polite live region). */
export function showStatus(text) {
  const node = document.getElementById("page-status");
  if (!node) return;
  node.textContent = text;
  node.hidden = !text;
}

/**
 * Run `action` for a button or form at most once at a time (a double click does nothing more):
 * the control is disabled and aria-busy while it runs; errors go to showError.
 */
export async function once(control, action, where) {
  if (control.dataset.busy === "1") return undefined;
  control.dataset.busy = "1";
  control.setAttribute("aria-busy", "true");
  const wasDisabled = control.disabled;
  control.disabled = true;
  clearError(where);
  try {
    return await action();
  } catch (err) {
    showError(err, where);
    return undefined;
  } finally {
    control.dataset.busy = "";
    control.removeAttribute("aria-busy");
    control.disabled = wasDisabled;
  }
}

/**
 * A one-line form that asks for a reason before a privileged action: a labelled reason field
 * and a button; an empty reason is refused in the page (nothing sent), otherwise `action(reason)`
 * runs once however often the button is clicked. `input` and `form` add their attributes.
 */
export function reasonForm({ id, label, button, buttonClass, input = {}, form = {}, action }) {
  const field = el("input", { id, maxlength: "500", autocomplete: "off", ...input });
  const submit = el("button", { type: "submit", class: buttonClass, text: button });
  const node = el("form", { class: "row", novalidate: true, ...form }, el("label", { for: id, class: "visually-hidden", text: label }), field, submit);
  node.addEventListener("submit", (event) => {
    event.preventDefault();
    const reason = field.value.trim();
    if (!reason) {
      showError({ text: t("pages.reason_required") });
      return;
    }
    once(submit, () => action(reason));
  });
  return node;
}
