// The login page: signs in with POST /api/auth/login (JSON), then goes to `next` (a local path)
// or to the page of the user's role. Refusals (wrong password, throttled) in the page's language.

import { api, once, showError } from "./api.js";
import { t } from "./i18n.js";

const form = document.getElementById("login-form");
const error = document.getElementById("login-error");
const HOME = { player: "/", dealer: "/", supervisor: "/supervisor", admin: "/admin" };

// Where `next` leads, resolved against this page's origin as the browser would (it drops tabs
// and newlines and reads a backslash as "/": "/%5Cevil.example" is another site); null unless it
// stays on this origin (the server keeps only such paths too: auth.safe_next).
export function localTarget(after, origin = location.origin) {
  if (typeof after !== "string" || !after.startsWith("/")) return null;
  let url;
  try {
    url = new URL(after, origin);
  } catch {
    return null;
  }
  if (url.origin !== origin) return null;
  const path = url.pathname + url.search + url.hash;
  return path === "/" || url.pathname === "/login" ? null : path;
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const name = form.elements.name.value.trim();
  const password = form.elements.password.value;
  if (!name || !password) {
    error.textContent = t("pages.login_missing");
    error.hidden = false;
    return;
  }
  const submit = document.getElementById("login-submit");
  once(
    submit,
    async () => {
      try {
        const session = await api("/api/auth/login", {
          method: "POST",
          body: { name, password },
          stayOnSignOut: true,
        });
        const target = localTarget(form.elements.next.value);
        location.assign(target || HOME[session.role] || "/");
      } catch (err) {
        showError(err, error);
        form.elements.password.value = "";
        form.elements.password.focus();
      }
    },
    error,
  );
});
