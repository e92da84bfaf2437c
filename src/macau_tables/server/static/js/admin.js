// The administrator's page: the cashier (deposits, withdrawals: one idempotency key per
// request, so a double click or a retry never pays twice), every wallet, users (add, disable,
// enable, unlock their sign-in — each with a reason, audited), the tables' options and their approvals (CSP-13,
// BAC-19) with every rules field's control and the exact math of a change before it is saved
// (admin_options.js), the meters, and the latest entries of the audit log.

import { api, clearError, newKey, once, reasonForm, showError, showStatus } from "./api.js";
import { dateTime, money, t, term } from "./i18n.js";
import { el, gameName } from "./tables_info.js";
import { optionName, optionValueText, optionsEditor } from "./admin_options.js";

const ROLE = { player: "pages.role_player", dealer: "pages.role_dealer", supervisor: "pages.role_supervisor", admin: "pages.role_admin" };

/** "1,234.50" -> 123450 minor units (string arithmetic, no float), or null. */
export function parseAmount(text) {
  const clean = String(text).trim().replaceAll(",", "");
  const match = /^(\d{1,13})(?:\.(\d{1,2}))?$/.exec(clean);
  if (!match) return null;
  const minor = BigInt(match[1]) * 100n + BigInt((match[2] || "0").padEnd(2, "0"));
  return minor > 0n ? Number(minor) : null;
}

function table(head, rows, attrs = {}) {
  return el(
    "table",
    { class: "data", ...attrs },
    el("thead", {}, el("tr", {}, ...head.map(([key, num]) => el("th", { scope: "col", class: num ? "num" : null, text: t(key) })))),
    el("tbody", {}, ...rows),
  );
}

// -- cashier ---------------------------------------------------------------------------------

let wallets = [];
async function drawWallets() {
  wallets = (await api("/api/wallets")).wallets;
  const select = document.getElementById("cash-player");
  const chosen = select.value;
  select.replaceChildren(...wallets.map((w) => el("option", { value: w.player, text: `${w.name} (${w.player})` })));
  if (chosen) select.value = chosen;
  document.getElementById("wallets").replaceChildren(
    table(
      [["pages.adm_player", false], ["pages.adm_balance", true]],
      wallets.map((w) => el("tr", { "data-wallet": w.player }, el("th", { scope: "row", text: `${w.name} (${w.player})` }), el("td", { class: "num", "data-balance": w.balance, text: money(w.balance) }))),
    ),
  );
}

const cashForm = document.getElementById("cash-form");
const cashError = document.getElementById("cash-error");
let pending = null; // {signature, key}: the same request again re-uses its idempotency key
cashForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const button = event.submitter || document.getElementById("cash-deposit");
  const kind = button.dataset.kind;
  const amount = parseAmount(cashForm.elements.amount.value);
  const reason = cashForm.elements.reason.value.trim();
  const player = cashForm.elements.player.value;
  clearError(cashError);
  if (amount === null) {
    cashError.textContent = t("pages.adm_amount_bad");
    cashError.hidden = false;
    return;
  }
  if (!reason) {
    cashError.textContent = t("pages.reason_required");
    cashError.hidden = false;
    return;
  }
  const signature = JSON.stringify([kind, player, amount, reason]);
  if (!pending || pending.signature !== signature) pending = { signature, key: newKey() };
  const body = { player, amount, reason, idempotency_key: pending.key };
  once(
    button,
    async () => {
      try {
        const done = await api(`/api/cashier/${kind}`, { method: "POST", body });
        pending = null;
        showStatus(t(kind === "deposit" ? "pages.adm_deposited" : "pages.adm_withdrew", { amount: money(done.amount), player: done.player, balance: money(done.balance) }));
        cashForm.elements.amount.value = "";
        await drawWallets();
      } catch (err) {
        if (err.status !== 0) pending = null;
        showError(err, cashError);
      }
    },
    cashError,
  );
});

// -- users -----------------------------------------------------------------------------------

async function drawUsers() {
  const users = await api("/api/admin/users");
  const rows = users.map((u) => {
    const id = `why-${u.name}`;
    const form = reasonForm({
      id,
      label: t("pages.adm_reason_for", { name: u.name }),
      button: t(u.disabled ? "pages.adm_enable" : "pages.adm_disable"),
      buttonClass: "button-small button-quiet",
      input: { class: "reason-input" },
      form: { "data-user-form": u.name },
      action: async (reason) => {
        await api(`/api/admin/users/${encodeURIComponent(u.name)}/${u.disabled ? "enable" : "disable"}`, { method: "POST", body: { reason } });
        showStatus(t(u.disabled ? "pages.adm_enabled" : "pages.adm_disabled", { name: u.name }));
        await drawUsers();
      },
    });
    // Unlock: forget the user's failed logins, so no address waits before trying them again.
    const unlock = reasonForm({
      id: `unlock-${u.name}`,
      label: t("pages.adm_unlock_reason_for", { name: u.name }),
      button: t("pages.adm_unlock"),
      buttonClass: "button-small button-quiet",
      input: { class: "reason-input" },
      form: { "data-unlock-form": u.name },
      action: async (reason) => {
        const done = await api(`/api/admin/users/${encodeURIComponent(u.name)}/unlock`, { method: "POST", body: { reason } });
        showStatus(t("pages.adm_unlocked", { name: u.name, count: done.forgotten }));
      },
    });
    return el(
      "tr",
      { "data-user": u.name, "data-disabled": u.disabled ? "1" : "0" },
      el("th", { scope: "row", text: u.name }),
      el("td", { text: t(ROLE[u.role] || ROLE.player) }),
      el("td", { text: t(u.disabled ? "pages.adm_state_disabled" : "pages.adm_state_active") }),
      el("td", {}, form, unlock),
    );
  });
  document.getElementById("users").replaceChildren(
    table([["pages.adm_user_name", false], ["pages.adm_user_role", false], ["pages.adm_user_state", false], ["pages.adm_user_action", false]], rows),
  );
}

const userForm = document.getElementById("user-form");
const userError = document.getElementById("user-error");
userForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const body = {
    name: userForm.elements.name.value.trim(),
    role: userForm.elements.role.value,
    password: userForm.elements.password.value,
    reason: userForm.elements.reason.value.trim(),
  };
  if (!body.name || !body.password || !body.reason) {
    userError.textContent = t("pages.adm_user_missing");
    userError.hidden = false;
    return;
  }
  once(
    document.getElementById("user-add"),
    async () => {
      try {
        await api("/api/admin/users", { method: "POST", body });
        showStatus(t("pages.adm_user_added", { name: body.name }));
        userForm.reset();
        await Promise.all([drawUsers(), drawWallets()]);
      } catch (err) {
        showError(err, userError);
      }
    },
    userError,
  );
});

// -- options, meters, audit ------------------------------------------------------------------

// One pending approval per table: the same submission again re-uses its idempotency key.
const pendingApproval = new Map();

/** The form "record an approval" of a table (CSP-13, BAC-19): one of its options needing
 * approval at its current value, the regulator's reference, the dates, a reason. */
function approvalForm(tb) {
  const scalar = tb.options.filter((o) => o.value === null || typeof o.value !== "object");
  const id = (name) => `appr-${tb.table_id}-${name}`;
  const field = (name, key, control) => el("div", { class: "field-inline" }, el("label", { for: id(name), text: t(key) }), control);
  const select = el("select", { id: id("option"), name: "option" }, ...scalar.map((o) => el("option", { value: o.option, text: `${optionName(o.option)}: ${optionValueText(o.option, o.value)}` })));
  const text = (name, extra = {}) => el("input", { id: id(name), name, autocomplete: "off", ...extra });
  const error = el("p", { class: "inline-error", role: "alert", hidden: true });
  const button = el("button", { type: "submit", class: "button-small", text: t("pages.adm_appr_button") });
  const form = el(
    "form",
    { "data-approval-form": tb.table_id, novalidate: true, "aria-labelledby": id("heading") },
    el("h4", { id: id("heading"), text: t("pages.adm_appr_heading", { table: tb.table_id }) }),
    field("option", "pages.adm_appr_option", select),
    field("reference", "pages.adm_appr_reference", text("reference", { maxlength: "200" })),
    field("applied", "pages.adm_appr_applied", text("applied", { type: "date" })),
    field("effective", "pages.adm_appr_effective", text("effective", { type: "date" })),
    field("reason", "pages.field_reason", text("reason", { maxlength: "500" })),
    error,
    button,
  );
  if (!scalar.length) {
    select.disabled = true;
    button.disabled = true;
  }
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    clearError(error);
    const chosen = scalar.find((o) => o.option === select.value);
    const approval = {
      option: select.value,
      value: chosen ? chosen.value : null,
      reference: form.elements.reference.value.trim(),
      applied_on: form.elements.applied.value,
      effective_on: form.elements.effective.value,
    };
    const reason = form.elements.reason.value.trim();
    if (!chosen || !approval.reference || !approval.applied_on || !approval.effective_on || !reason) {
      error.textContent = t("pages.adm_appr_missing");
      error.hidden = false;
      return;
    }
    const signature = JSON.stringify([approval, reason]);
    let pending = pendingApproval.get(tb.table_id);
    if (!pending || pending.signature !== signature) {
      pending = { signature, key: newKey() };
      pendingApproval.set(tb.table_id, pending);
    }
    const body = { approvals: [approval], changes: {}, reason, idempotency_key: pending.key };
    once(
      button,
      async () => {
        try {
          await api(`/api/admin/tables/${encodeURIComponent(tb.table_id)}/config`, { method: "POST", body });
          pendingApproval.delete(tb.table_id);
          showStatus(t("pages.adm_appr_recorded", { reference: approval.reference, table: tb.table_id }));
          await drawOptions();
        } catch (err) {
          if (err.status !== 0) pendingApproval.delete(tb.table_id);
          showError(err, error);
        }
      },
      error,
    );
  });
  return form;
}

async function drawOptions() {
  const found = await api("/api/admin/tables");
  const box = document.getElementById("options");
  box.replaceChildren(
    ...found.tables.map((tb) => {
      const approvals = new Map(tb.approvals.map((a) => [a.option, a]));
      const rows = tb.options.map((o) => {
        const a = approvals.get(o.option);
        return el(
          "tr",
          {},
          el("th", { scope: "row", "data-option": o.option, text: optionName(o.option) }),
          el("td", { "data-value": JSON.stringify(o.value), text: optionValueText(o.option, o.value) }),
          el("td", { text: o.rule }),
          el("td", { text: a ? t("pages.adm_approval", { reference: a.reference, applied: a.applied_on, effective: a.effective_on }) : t("pages.adm_no_approval") }),
        );
      });
      const verdict = tb.approved_today ? t("pages.adm_approved_today", { day: found.day }) : t("pages.adm_not_approved", { reason: (tb.refusal && tb.refusal.text) || "" });
      return el(
        "div",
        { class: "table-wrap", "data-options": tb.table_id },
        el("h3", { text: `${term(tb.name)} (${tb.table_id}) · ${gameName(tb.game)}` }),
        el("p", { class: tb.approved_today ? "" : "inline-error", text: verdict }),
        el("p", { class: "muted mono", text: t("pages.adm_config", { id: tb.config_id, sha: tb.config_sha256 }) }),
        table([["pages.adm_option", false], ["pages.adm_value", false], ["pages.adm_rule", false], ["pages.adm_approval_record", false]], rows),
        approvalForm(tb),
        optionsEditor(tb, drawOptions),
      );
    }),
  );
}

async function drawMeters() {
  const { meters } = await api("/api/meters");
  const select = document.getElementById("seed-meter");
  const chosen = select.value;
  select.replaceChildren(...meters.map((m) => el("option", { value: m.id, text: `${m.id} · ${gameName(m.game)}` })));
  if (chosen) select.value = chosen;
  document.getElementById("meters").replaceChildren(
    table(
      [["pages.adm_meter", false], ["pages.adm_meter_amount", true], ["pages.adm_meter_seed", true], ["pages.adm_meter_hits", true], ["pages.adm_meter_tables", false]],
      meters.map((m) => el("tr", {}, el("th", { scope: "row", text: `${m.id} · ${gameName(m.game)}` }), el("td", { class: "num", text: money(m.amount) }), el("td", { class: "num", "data-seed": m.seed, "data-seed-pending": m.seed_pending ?? "", text: m.seed_pending === null ? money(m.seed) : t("pages.adm_seed_pending", { seed: money(m.seed), pending: money(m.seed_pending) }) }), el("td", { class: "num", text: m.hits }), el("td", { text: m.tables.join(", ") }))),
    ),
  );
}

// A meter's new seed, in force from its next hit (CSP-10.8); refused while a linked table has
// a round in progress (tables.meter_round_open).
const seedForm = document.getElementById("seed-form");
const seedError = document.getElementById("seed-error");
seedForm.addEventListener("submit", (event) => {
  event.preventDefault();
  clearError(seedError);
  const text = seedForm.elements.seed.value.trim();
  const seed = /^0+(?:\.0{1,2})?$/.test(text) ? 0 : parseAmount(text);
  const reason = seedForm.elements.reason.value.trim();
  if (seed === null || !reason) {
    seedError.textContent = t(seed === null ? "pages.adm_amount_bad" : "pages.reason_required");
    seedError.hidden = false;
    return;
  }
  const meter = seedForm.elements.meter.value;
  once(
    document.getElementById("seed-change"),
    async () => {
      try {
        const done = await api(`/api/meters/${encodeURIComponent(meter)}/params`, { method: "POST", body: { seed, reason } });
        showStatus(t("pages.adm_seed_changed", { meter: done.id, seed: money(done.seed_pending ?? done.seed) }));
        seedForm.elements.seed.value = "";
        await drawMeters();
      } catch (err) {
        showError(err, seedError);
      }
    },
    seedError,
  );
});

async function drawAudit() {
  const { entries } = await api("/api/audit/log", { query: { limit: 20 } });
  document.getElementById("audit").replaceChildren(
    table(
      [["pages.adm_audit_when", false], ["pages.adm_audit_who", false], ["pages.adm_audit_action", false], ["pages.adm_audit_why", false]],
      entries.map((e) => el("tr", {}, el("td", { text: dateTime(e.at) }), el("td", { text: e.actor }), el("td", { class: "mono", "data-action": e.action, text: term(e.action) + (e.table_id ? ` · ${e.table_id}` : "") }), el("td", { text: e.reason ? term(e.reason) : "—" }))),
    ),
  );
}

Promise.all([drawWallets(), drawUsers(), drawOptions(), drawMeters(), drawAudit()]).catch((err) => showError(err));
