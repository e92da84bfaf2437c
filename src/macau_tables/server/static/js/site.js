// Every page (base.html): the sign-out button.

import { api, once, showError } from "./api.js";

const logout = document.getElementById("logout");
if (logout) {
  logout.addEventListener("click", () =>
    once(logout, async () => {
      try {
        await api("/api/auth/logout", { method: "POST", stayOnSignOut: true });
      } catch (err) {
        if (err.status !== 401) {
          showError(err);
          return;
        }
      }
      location.assign("/");
    }),
  );
}
