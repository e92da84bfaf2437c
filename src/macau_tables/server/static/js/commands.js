// A supervisor's command as a form, built from the command's OpenAPI schema (server/schemas:
// one schema per command the codec decodes) — the page never knows which game it is: the
// command names come from the table (expected.commands, /api/authorisations), the fields from
// the schema. The acting supervisor's own name fills the field that names them.

import { api, newKey, once, showError, showStatus } from "./api.js";
import { t, term } from "./i18n.js";
import { el } from "./tables_info.js";

const COMMAND = {
  Void: "pages.command_void",
  Correct: "pages.command_correct",
  ClearFault: "pages.command_clear_fault",
  RejectReport: "pages.command_reject_report",
  ShufflerReplaced: "pages.command_shuffler_replaced",
  ReleaseAward: "pages.command_release_award",
};
const FIELD = { reason: "pages.field_reason", action: "pages.field_action" };
const VALUE = {
  wrong_procedure: "play.void_wrong_procedure",
  wrong_card_count: "play.void_wrong_card_count",
  exposures: "play.void_exposures",
  shuffler_failure: "play.void_shuffler_failure",
  uncorrectable: "play.void_uncorrectable",
  reassign: "pages.action_reassign",
  withdraw: "pages.action_withdraw",
  mistyped: "pages.action_mistyped",
};

let schemas = null;

async function commandSchemas() {
  if (!schemas) {
    const openapi = await api("/openapi.json");
    schemas = {};
    for (const schema of Object.values(openapi.components.schemas)) {
      const type = schema.properties && schema.properties.type && schema.properties.type.const;
      if (type) schemas[type] = schema;
    }
  }
  return schemas;
}

/** The short name of a codec type ("baccarat.Void" -> "Void"). */
export function shortName(type) {
  return type.split(".").pop();
}

export function commandName(type) {
  const short = shortName(type);
  return COMMAND[short] ? t(COMMAND[short]) : term(short); // any other command: the glossary's word
}

/**
 * The full codec type of command `short` at a table: among `types` (expected.commands) when
 * known, else the one schema with that name.
 */
export async function resolve(short, types) {
  const all = await commandSchemas();
  const named = (types && types.length ? types : Object.keys(all)).filter((type) => shortName(type) === short);
  return named.length === 1 ? named[0] : named.find((type) => type in all) || null;
}

/**
 * A form that sends command `type` to `tableId` with the supervisor's name `me`; `done()` runs
 * after it was accepted. `prefix` makes the controls' ids unique; `preset` gives fields whose
 * value the waiting item already names (a held award's `hold_id`).
 */
export async function commandForm(tableId, type, me, prefix, done, preset = {}) {
  const all = await commandSchemas();
  const schema = all[type];
  const form = el("form", { class: "command-form panel", "data-command": type, novalidate: true });
  const error = el("p", { class: "inline-error", role: "alert", hidden: true });
  const fields = [];
  for (const [name, prop] of Object.entries((schema && schema.properties) || {})) {
    if (name === "type" || name === "v") continue;
    if (name === "supervisor") {
      fields.push([name, () => me]);
      continue;
    }
    if (name in preset) {
      fields.push([name, () => preset[name]]);
      continue;
    }
    const id = `${prefix}-${name}`;
    const options = Array.isArray(prop.enum) ? prop.enum : ((prop.anyOf || []).find((p) => Array.isArray(p.enum)) || {}).enum;
    // an optional field that is no choice (a void's evidence: the service finds it) is left out
    if (!options && !(schema.required || []).includes(name)) continue;
    let control;
    if (options) {
      control = el("select", { id, name, required: true }, ...options.map((value) => el("option", { value, text: VALUE[value] ? t(VALUE[value]) : term(value) })));
    } else if (prop.type === "integer") {
      control = el("input", { id, name, type: "number", step: "1", required: true });
    } else {
      control = el("input", { id, name, required: true, maxlength: "500", autocomplete: "off" });
    }
    form.append(el("div", { class: "field-inline" }, el("label", { for: id, text: FIELD[name] ? t(FIELD[name]) : term(`field ${name}`).replace(/^field /, "") }), control));
    fields.push([name, () => (prop.type === "integer" ? Number(control.value) : control.value.trim())]);
  }
  const button = el("button", { type: "submit", class: shortName(type) === "Void" ? "button-danger" : "", text: commandName(type) });
  form.append(button, error);
  const key = newKey();
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const command = { type };
    for (const [name, value] of fields) command[name] = value();
    if ("reason" in command && !command.reason) {
      error.textContent = t("pages.reason_required");
      error.hidden = false;
      return;
    }
    once(
      button,
      async () => {
        try {
          await api(`/api/tables/${tableId}/commands`, { method: "POST", body: { idempotency_key: key, command } });
          showStatus(t("pages.command_done", { command: commandName(type), table: tableId }));
          if (done) done();
        } catch (err) {
          showError(err, error);
        }
      },
      error,
    );
  });
  return form;
}
