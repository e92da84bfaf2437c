// The login page: signs in with POST /api/auth/login (JSON), then goes to `next` (a local path)
// or to the page of the user's role. Refusals (wrong password, throttled) in the page's language.

import { api, once, showError } from "./api.js";
import { t } from "./i18n.js";

const form = document.getElementById("login-form");
const error = document.getElementById("login-error");
const HOME = { player: "/", dealer: "/", supervisor: "/supervisor", admin: "/admin" };

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
        const after = form.elements.next.value;
        const local = after && after.startsWith("/") && !after.startsWith("//") && after !== "/login";
        location.assign(local && after !== "/" ? after : HOME[session.role] || "/");
      } catch (err) {
        showError(err, error);
        form.elements.password.value = "";
        form.elements.password.focus();
      }
    },
    error,
  );
});
