// A table's options on the administrator's page: every rules field the API
// takes as a form control in the reader's words (money in major units, read back into integer
// minor units by string arithmetic, never a float; shares as percentages, sent as exact
// fractions), the exact math of a change before it is saved — computed by the server's analysis
// worker (POST /api/admin/tables/{id}/analysis, then GET /api/admin/analysis/{job}), shown with
// its progress — and the change saved with the regulator's approval records it needs (CSP-13,
// BAC-19) through POST /api/admin/tables/{id}/config.

import { api, clearError, newKey, once, showError, showStatus } from "./api.js";
import { lang, money, t, term } from "./i18n.js";
import { el } from "./tables_info.js";

// -- reading and writing values ----------------------------------------------------------------

/** "1,234.50" -> 123450 minor units (string arithmetic, no float); `zero` allows 0; else null. */
export function parseMoney(text, zero = false) {
  const clean = String(text).trim().replaceAll(",", "");
  const match = /^(\d{1,13})(?:\.(\d{1,2}))?$/.exec(clean);
  if (!match) return null;
  const minor = BigInt(match[1]) * 100n + BigInt((match[2] || "0").padEnd(2, "0"));
  if (minor === 0n && !zero) return null;
  return Number(minor);
}

/** "30" -> 30; anything but digits -> null. */
function parseWhole(text) {
  const clean = String(text).trim();
  return /^\d{1,9}$/.test(clean) ? Number(clean) : null;
}

function gcd(a, b) {
  while (b) [a, b] = [b, a % b];
  return a;
}

/** "n/d" (exact) -> [BigInt n, BigInt d], reduced, d > 0. */
function fraction(text) {
  const [n, d = "1"] = String(text).split("/");
  let num = BigInt(n);
  let den = BigInt(d);
  if (den < 0n) [num, den] = [-num, -den];
  const g = gcd(num < 0n ? -num : num, den) || 1n;
  return [num / g, den / g];
}

/** "12.5" (a percentage 0..100, at most 4 decimals) -> "1/8" exactly; else null. */
export function parsePercent(text) {
  const match = /^(\d{1,3})(?:\.(\d{1,4}))?$/.exec(String(text).trim());
  if (!match) return null;
  const decimals = match[2] || "";
  const num = BigInt(match[1] + decimals);
  const den = 100n * 10n ** BigInt(decimals.length);
  if (num > den) return null;
  const [n, d] = fraction(`${num}/${den}`);
  return `${n}/${d}`;
}

/**
 * An exact "n/d" as a percentage with `digits` decimals, rounded half away from zero
 * ("1/8" -> "12.5000"), as money.format_percent does with two.
 */
export function percentText(text, digits = 4) {
  const [num, den] = fraction(text);
  const scale = 100n * 10n ** BigInt(digits);
  const abs = num < 0n ? -num : num;
  const units = (abs * scale * 2n + den) / (2n * den);
  const whole = units / 10n ** BigInt(digits);
  const part = (units % 10n ** BigInt(digits)).toString().padStart(digits, "0");
  const sign = num < 0n && units ? "-" : "";
  return `${sign}${whole}${digits ? `.${part}` : ""}`;
}

/** A percentage field's text of an exact share: "1/2" -> "50", "1/8" -> "12.5". */
function shareText(text) {
  return percentText(text, 4).replace(/\.?0+$/, "");
}

/** A change of a percentage, signed ("+0.0084", "-0.0100", "0.0000"). */
function changeText(text) {
  const shown = percentText(text, 4);
  return fraction(text)[0] > 0n ? `+${shown}` : shown;
}

/** -x of an exact "n/d" (a change of the return is minus the change of the house edge). */
function negated(text) {
  const [n, d] = fraction(text);
  return `${-n}/${d}`;
}

// -- the fields both games share (each game's own: games/<game>.js) ------------------------------

const AWARD_LABEL = {
  royal_flush: "pages.payterm_royal_flush",
  straight_flush: "pages.payterm_straight_flush",
  four_of_a_kind: "pages.payterm_four_of_a_kind",
  full_house: "pages.payterm_full_house",
  flush: "pages.payterm_flush",
  heavenly_straight: "pages.payterm_heavenly_straight",
  double_pair: "pages.payterm_double_pair",
  three_of_a_kind: "pages.payterm_three_of_a_kind",
  single_pair: "pages.payterm_single_pair",
};
const WAGER_LABEL = {
  ante: "pages.adm_w_ante",
  player: "pages.payterm_player",
  banker: "pages.payterm_banker",
  tie: "pages.payterm_tie",
  player_pair: "pages.payterm_player_pair",
  banker_pair: "pages.payterm_banker_pair",
  lucky_six: "pages.adm_w_lucky_6",
  lucky_6: "pages.adm_w_lucky_6",
  jackpot: "pages.paysection_jackpot",
};
const LIMIT_KINDS = ["player", "banker", "tie", "player_pair", "banker_pair", "lucky_6", "jackpot"];
const MAIN_KINDS = new Set(["player", "banker", "tie"]); // always offered (BAC-13)
export const TIE_OPTIONS = [
  ["withdraw", "pages.adm_tie_withdraw"],
  ["leave", "pages.adm_tie_leave"],
  ["reduce", "pages.adm_tie_reduce"],
  ["switch", "pages.adm_tie_switch"],
];

/** The round cycle's section, every game's. */
export const CYCLE = [
  { path: ["betting_seconds"], kind: "whole", label: "pages.adm_f_betting_seconds" },
  { path: ["result_seconds"], kind: "whole", label: "pages.adm_f_result_seconds" },
  { path: ["idle_after_rounds"], kind: "whole", label: "pages.adm_f_idle_after_rounds" },
  { path: ["countdown_closes"], kind: "bool", label: "pages.adm_f_countdown_closes" },
];

/** The jackpot's fields, its fixed `awards` (combinations) last. */
export function jackpotFields(awards) {
  return [
    { path: ["jackpot_wager"], kind: "money", label: "pages.adm_f_jackpot_wager" },
    { path: ["jackpot_contribution"], kind: "percent", label: "pages.adm_f_jackpot_contribution" },
    { path: ["jackpot_seed"], kind: "money0", label: "pages.adm_f_jackpot_seed" },
    ...awards.map((combo) => ({
      path: ["jackpot_fixed_awards", combo],
      kind: "money0",
      label: AWARD_LABEL[combo],
      award: true,
    })),
  ];
}

function getPath(rules, path) {
  return path.reduce((node, key) => (node == null ? undefined : node[key]), rules);
}

function setPath(rules, path, value) {
  let node = rules;
  for (const key of path.slice(0, -1)) node = node[key];
  node[path[path.length - 1]] = value;
}

// -- an option's value in the reader's words ----------------------------------------------------

/** ["a", "b", "c"] as the page's language lists them ("a, b and c", "a、b和c"). */
function listText(items) {
  return new Intl.ListFormat(lang(), { style: "long", type: "conjunction" }).format(items);
}

const OPTION_LABEL = {
  royal_flush_odds: "pages.adm_opt_royal_flush_odds",
  "bac.burn_rule": "pages.adm_f_burn_rule",
  "bac.demo_rounds": "pages.adm_opt_demo_rounds",
  "bac.machine": "pages.adm_f_machine",
  "bac.last_round": "pages.adm_f_last_round",
  "bac.tie_options": "pages.adm_f_tie_options",
  "bac.banker_pair": "pages.payterm_banker_pair",
  "bac.player_pair": "pages.payterm_player_pair",
  "bac.jackpot": "pages.paysection_jackpot",
  "bac.lucky_6": "pages.adm_w_lucky_6",
  "bac.no_commission": "pages.adm_opt_no_commission",
};

/** The name of an option needing approval (CSP-13, BAC-19), in the reader's words. */
export function optionName(option) {
  if (Object.hasOwn(OPTION_LABEL, option)) return t(OPTION_LABEL[option]);
  const award = /^bac\.fixed_award\.(\w+)$/.exec(option);
  if (award && AWARD_LABEL[award[1]]) return t("pages.adm_opt_fixed_award", { combination: t(AWARD_LABEL[award[1]]) });
  return term(option);
}

/** The value of an option needing approval (GET /api/admin/tables), in the reader's words. */
export function optionValueText(option, value) {
  if (option === "royal_flush_odds") return t("pages.pay_odds", { odds: value });
  if (option.startsWith("bac.fixed_award.")) return money(value);
  if (option === "bac.tie_options") {
    return listText(String(value).split(",").map((v) => t((TIE_OPTIONS.find(([key]) => key === v) || [v, v])[1])));
  }
  if (option === "bac.burn_rule") {
    if (value === "first_card") return t("pages.adm_c_burn_first_card");
    const fixed = /^fixed:(\d+)$/.exec(String(value));
    if (fixed) return t("pages.adm_burn_fixed_cards", { cards: fixed[1] });
  }
  if (option === "bac.last_round" && value === "one_more") return t("pages.adm_c_last_one_more");
  if (value === true) return t("pages.adm_offered");
  if (value === false) return t("pages.adm_not_offered");
  return String(value);
}

// -- the form ------------------------------------------------------------------------------------

let uid = 0;

function control(tb, spec, rules) {
  const id = `opt-${tb.table_id}-${spec.path.join("-")}`;
  const value = getPath(rules, spec.path);
  const label = t(spec.label);
  const wrap = (input, extra = null) =>
    el("div", { class: "field-inline", "data-field": spec.path.join(".") }, el("label", { for: id, text: label }), input, extra);
  if (spec.kind === "bool") {
    const box = el("input", { id, type: "checkbox", checked: value === true });
    return el("div", { class: "field-inline", "data-field": spec.path.join(".") }, el("label", {}, box, " ", label));
  }
  if (spec.kind === "choice") {
    const select = el("select", { id }, ...spec.choices.map(([v, key]) => el("option", { value: v, text: t(key), selected: v === value })));
    return wrap(select);
  }
  if (spec.kind === "set") {
    const chosen = new Set(value || []);
    return el(
      "fieldset",
      { "data-field": spec.path.join(".") },
      el("legend", { text: label }),
      ...spec.choices.map(([v, key]) => {
        const boxId = `${id}-${v}`;
        return el("span", { class: "field-inline" }, el("label", {}, el("input", { id: boxId, type: "checkbox", "data-choice": v, checked: chosen.has(v) }), " ", t(key)));
      }),
    );
  }
  if (spec.kind === "limits") {
    const rows = LIMIT_KINDS.map((kind) => {
      const limit = (value || {})[kind];
      const base = `${id}-${kind}`;
      const name = t(WAGER_LABEL[kind]);
      return el(
        "tr",
        { "data-limit": kind },
        el("th", { scope: "row", text: name }),
        el("td", {}, el("input", { id: `${base}-on`, type: "checkbox", checked: Boolean(limit), disabled: MAIN_KINDS.has(kind), "aria-label": t("pages.adm_limit_offered", { wager: name }) })),
        el("td", {}, el("input", { id: `${base}-min`, inputmode: "decimal", autocomplete: "off", size: 10, value: limit ? money(limit.minimum) : "", "aria-label": t("pages.adm_limit_minimum", { wager: name }) })),
        el("td", {}, el("input", { id: `${base}-max`, inputmode: "decimal", autocomplete: "off", size: 10, value: limit ? money(limit.maximum) : "", "aria-label": t("pages.adm_limit_maximum", { wager: name }) })),
      );
    });
    return el(
      "div",
      { class: "table-wrap", "data-field": "limits", tabindex: "0", role: "region", "aria-label": label },
      el(
        "table",
        { class: "data" },
        el("caption", { text: label }),
        el("thead", {}, el("tr", {}, ...["pages.adm_limit_wager", "pages.adm_limit_on", "pages.adm_limit_min", "pages.adm_limit_max"].map((key) => el("th", { scope: "col", text: t(key) })))),
        el("tbody", {}, ...rows),
      ),
    );
  }
  let text = "";
  if (spec.kind === "money" || spec.kind === "money0") text = money(value);
  else if (spec.kind === "moneyOrNone") text = value === null || value === undefined ? "" : money(value);
  else if (spec.kind === "percent") text = shareText(value);
  else text = String(value);
  const help = { money: "pages.adm_help_money", money0: "pages.adm_help_money", moneyOrNone: "pages.adm_help_money_none", percent: "pages.adm_help_percent", whole: null, fixed: "pages.adm_help_fixed" }[spec.kind];
  const helpId = help ? `${id}-help-${++uid}` : null;
  const input = el("input", {
    id,
    value: text,
    autocomplete: "off",
    size: 12,
    inputmode: spec.kind === "whole" || spec.kind === "fixed" ? "numeric" : "decimal",
    readonly: spec.kind === "fixed",
    "aria-describedby": helpId,
  });
  return wrap(input, help ? el("span", { id: helpId, class: "muted", text: ` ${t(help)}` }) : null);
}

/**
 * The rules the form says (a copy of `rules` with each field read back), or the first
 * refusal: {field, text} naming the field (nothing is sent then).
 */
function readForm(form, tb, game, rules) {
  const out = structuredClone(rules);
  const field = (spec) => form.querySelector(`#opt-${CSS.escape(tb.table_id)}-${CSS.escape(spec.path.join("-"))}`);
  for (const [, specs] of game.SECTIONS) {
    for (const spec of specs) {
      const label = t(spec.label);
      const bad = (key) => ({ field: spec.path.join("."), text: t(key, { field: label }) });
      if (spec.kind === "bool") {
        setPath(out, spec.path, field(spec).checked);
      } else if (spec.kind === "choice") {
        setPath(out, spec.path, field(spec).value);
      } else if (spec.kind === "set") {
        const box = form.querySelector(`[data-field="${spec.path.join(".")}"]`);
        const chosen = [...box.querySelectorAll("input[data-choice]")].filter((i) => i.checked).map((i) => i.dataset.choice).sort();
        if (!chosen.length) return bad("pages.adm_bad_set");
        setPath(out, spec.path, chosen);
      } else if (spec.kind === "limits") {
        const limits = {};
        const template = Object.values(rules.limits)[0];
        for (const kind of LIMIT_KINDS) {
          const base = `opt-${tb.table_id}-limits-${kind}`;
          const on = document.getElementById(`${base}-on`);
          if (!on.checked) continue;
          const name = t(WAGER_LABEL[kind]);
          const minimum = parseMoney(document.getElementById(`${base}-min`).value);
          const maximum = parseMoney(document.getElementById(`${base}-max`).value);
          if (minimum === null || maximum === null) {
            return { field: `limits.${kind}`, text: t("pages.adm_bad_money", { field: t("pages.adm_limit_of", { wager: name }) }) };
          }
          limits[kind] = { ...(rules.limits[kind] || { type: template.type, v: template.v }), minimum, maximum };
        }
        setPath(out, spec.path, limits);
      } else if (spec.kind === "fixed") {
        continue;
      } else {
        const text = field(spec).value;
        let value;
        if (spec.kind === "money") value = parseMoney(text);
        else if (spec.kind === "money0") value = parseMoney(text, true);
        else if (spec.kind === "moneyOrNone") value = text.trim() === "" ? null : parseMoney(text);
        else if (spec.kind === "percent") value = parsePercent(text);
        else value = parseWhole(text);
        if (value === null && !(spec.kind === "moneyOrNone" && text.trim() === "")) {
          const key = { money: "pages.adm_bad_money", money0: "pages.adm_bad_money", moneyOrNone: "pages.adm_bad_money", percent: "pages.adm_bad_percent", whole: "pages.adm_bad_whole" }[spec.kind];
          return bad(key);
        }
        if (spec.min !== undefined && (value < spec.min || value > spec.max)) {
          return { field: spec.path.join("."), text: t("pages.adm_bad_range", { field: label, min: spec.min, max: spec.max }) };
        }
        setPath(out, spec.path, value);
      }
    }
  }
  return { rules: out };
}

/** The changed top-level fields of `after` against `before` (nested settings whole). */
function changesOf(before, after) {
  const changes = {};
  for (const key of Object.keys(after)) {
    if (JSON.stringify(after[key]) !== JSON.stringify(before[key])) changes[key] = after[key];
  }
  return changes;
}

// -- the math ------------------------------------------------------------------------------------

function figuresTable(result, game) {
  const { current, candidate, difference } = result;
  const before = new Map(current.wagers.map((w) => [w.wager, w]));
  const change = new Map(difference.wagers.map((w) => [w.wager, w.house_edge]));
  const cell = (text, exact) => el("td", { class: "num", title: exact || null, "data-exact": exact || null, text });
  const rows = candidate.wagers.map((w) => {
    const old = before.get(w.wager);
    const diff = change.get(w.wager);
    return el(
      "tr",
      { "data-wager": w.wager },
      el("th", { scope: "row", text: t(WAGER_LABEL[w.wager]) }),
      cell(old ? `${percentText(old.house_edge)} %` : "—", old && old.house_edge),
      cell(`${percentText(w.house_edge)} %`, w.house_edge),
      cell(diff ? `${changeText(diff)} %` : "—", diff),
      cell(`${percentText(w.return)} %`, w.return),
    );
  });
  const jackpot = candidate.jackpot;
  if (jackpot.offered) {
    const old = current.jackpot.offered ? current.jackpot : null;
    const diff = difference.jackpot.return;
    rows.push(
      el(
        "tr",
        { "data-wager": "jackpot" },
        el("th", { scope: "row", text: t("pages.adm_math_jackpot_at", { amount: candidate.meter }) }),
        cell(old ? `${percentText(old.house_edge)} %` : "—", old && old.house_edge),
        cell(`${percentText(jackpot.house_edge)} %`, jackpot.house_edge),
        cell(diff ? `${changeText(negated(diff))} %` : "—", diff && negated(diff)),
        cell(`${percentText(jackpot.return)} %`, jackpot.return),
      ),
    );
  }
  const head = ["pages.adm_math_wager", "pages.adm_math_edge_now", "pages.adm_math_edge_new", "pages.adm_math_edge_change", "pages.adm_math_return_new"];
  const parts = [
    el(
      "div",
      { class: "table-wrap", tabindex: "0", role: "region", "aria-label": t("pages.adm_math_caption") },
      el(
        "table",
        { class: "data", "data-math": "1" },
        el("caption", { text: t("pages.adm_math_caption") }),
        el("thead", {}, el("tr", {}, ...head.map((key, i) => el("th", { scope: "col", class: i ? "num" : null, text: t(key) })))),
        el("tbody", {}, ...rows),
      ),
    ),
  ];
  if (jackpot.offered) {
    const even = jackpot.break_even_meter;
    const oldEven = current.jackpot.offered ? current.jackpot.break_even_meter : null;
    parts.push(
      el("p", { "data-break-even": even ?? "" }, even === null ? t("pages.adm_math_no_break_even") : t("pages.adm_math_break_even", { amount: even, approved: oldEven ?? 0 })),
    );
  }
  parts.push(el("p", { class: "muted", text: t(game.MATH_NOTE) }));
  return parts;
}

// -- one table's editor --------------------------------------------------------------------------

/**
 * The options editor of `tb` (one table of GET /api/admin/tables), closed; its form is built
 * when first opened. `redraw` after a save.
 */
export function optionsEditor(tb, redraw) {
  const box = el("details", { "data-edit": tb.table_id }, el("summary", {}, el("strong", { text: t("pages.adm_edit_summary", { table: tb.name }) })));
  let building = null; // the form's game part being loaded (then the form is there)
  box.addEventListener("toggle", () => {
    if (!box.open || building) return;
    building = gameForm(tb.game).then(
      (game) => box.append(editorForm(tb, game, redraw)),
      (err) => {
        const error = el("p", { class: "inline-error", role: "alert", "data-edit-error": tb.table_id });
        box.append(error);
        showError(err, error);
      },
    );
  });
  return box;
}

/**
 * The form part of `game` (its module games/<game>.js: SECTIONS, AWARDS, MATH_NOTE), loaded
 * once by the table's game as the API names it.
 */
function gameForm(game) {
  if (!gameForms.has(game)) gameForms.set(game, import(`./games/${encodeURIComponent(game)}.js`));
  return gameForms.get(game);
}
const gameForms = new Map();

function editorForm(tb, game, redraw) {
  const rules = tb.rules;
  const id = (name) => `edit-${tb.table_id}-${name}`;
  const sections = game.SECTIONS.map(([legend, specs]) => el("fieldset", {}, el("legend", { text: t(legend) }), ...specs.map((spec) => control(tb, spec, rules))));
  const error = el("p", { class: "inline-error", role: "alert", hidden: true, "data-edit-error": tb.table_id });
  const bar = el("progress", { max: 1, value: 0, "aria-labelledby": id("progress-text") });
  const barText = el("span", { id: id("progress-text") });
  const progress = el("div", { class: "field", role: "status", "aria-live": "polite", hidden: true, "data-progress": tb.table_id }, bar, " ", barText);
  const results = el("div", { "data-results": tb.table_id, "aria-live": "polite" });
  const show = el("button", { type: "button", class: "button-small", text: t("pages.adm_math_button") });
  const text = (name, extra = {}) => el("input", { id: id(name), name, autocomplete: "off", ...extra });
  const field = (name, key, input) => el("div", { class: "field-inline" }, el("label", { for: id(name), text: t(key) }), input);
  const approvalsNeeded = el("p", { class: "muted", "data-approvals-needed": tb.table_id });
  const save = el("button", { type: "submit", text: t("pages.adm_save_button"), disabled: true });
  const saving = el(
    "fieldset",
    {},
    el("legend", { text: t("pages.adm_save_heading") }),
    approvalsNeeded,
    field("reference", "pages.adm_appr_reference", text("reference", { maxlength: "200" })),
    field("applied", "pages.adm_appr_applied", text("applied", { type: "date" })),
    field("effective", "pages.adm_appr_effective", text("effective", { type: "date" })),
    field("reason", "pages.field_reason", text("reason", { maxlength: "500" })),
    save,
  );
  const form = el("form", { novalidate: true, "data-edit-form": tb.table_id }, ...sections, show, progress, error, results, saving);

  let generation = 0; // a newer request makes the older one's answers moot
  let shown = null; // {signature, changes, options}: the math on screen
  let pendingSave = null; // {signature, key}: the same save again re-uses its idempotency key

  function fail(text) {
    error.textContent = text;
    error.hidden = false;
  }

  async function showMath() {
    clearError(error);
    const read = readForm(form, tb, game, rules);
    if (read.text) {
      fail(read.text);
      return;
    }
    const changes = changesOf(rules, read.rules);
    const signature = JSON.stringify(changes);
    if (shown && shown.signature === signature) return;
    const mine = ++generation;
    shown = null;
    save.disabled = true;
    results.replaceChildren();
    approvalsNeeded.textContent = "";
    if (!Object.keys(changes).length) {
      results.replaceChildren(el("p", { class: "muted", text: t("pages.adm_math_no_change") }));
      return;
    }
    progress.hidden = false;
    bar.value = 0;
    barText.textContent = t("pages.adm_math_started");
    let answer;
    try {
      answer = await api(`/api/admin/tables/${encodeURIComponent(tb.table_id)}/analysis`, { method: "POST", body: { changes } });
      const options = answer.options;
      for (let polls = 0; answer.state === "running" && polls < 2400; polls += 1) {
        if (mine !== generation) return;
        bar.max = answer.progress.total;
        bar.value = answer.progress.done;
        barText.textContent = t("pages.adm_math_progress", { done: answer.progress.done, total: answer.progress.total });
        await new Promise((resolve) => setTimeout(resolve, 500));
        answer = { ...(await api(`/api/admin/analysis/${answer.job}`)), options };
      }
    } catch (err) {
      if (mine !== generation) return;
      progress.hidden = true;
      showError(err, error);
      return;
    }
    if (mine !== generation) return;
    if (answer.state !== "done") {
      progress.hidden = true;
      fail(t("pages.adm_math_failed"));
      return;
    }
    bar.max = answer.progress.total;
    bar.value = answer.progress.total;
    barText.textContent = t("pages.adm_math_done");
    results.replaceChildren(...figuresTable(answer, game));
    const approved = new Set(tb.approvals.map((a) => JSON.stringify([a.option, a.value])));
    const needed = answer.options.filter((o) => !approved.has(JSON.stringify([o.option, o.value])));
    approvalsNeeded.textContent = needed.length
      ? t("pages.adm_save_needs", { options: listText(needed.map((o) => `${optionName(o.option)}: ${optionValueText(o.option, o.value)}`)) })
      : t("pages.adm_save_needs_none");
    shown = { signature, changes, needed };
    save.disabled = false;
  }

  let timer = null;
  form.addEventListener("change", (event) => {
    if (saving.contains(event.target)) return;
    clearTimeout(timer);
    timer = setTimeout(() => showMath(), 300);
  });
  show.addEventListener("click", () => showMath());

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    clearError(error);
    if (!shown) return;
    const reason = form.elements.reason.value.trim();
    const reference = form.elements.reference.value.trim();
    const applied = form.elements.applied.value;
    const effective = form.elements.effective.value;
    if (!reason) {
      fail(t("pages.reason_required"));
      return;
    }
    if (shown.needed.length && (!reference || !applied || !effective)) {
      fail(t("pages.adm_appr_missing"));
      return;
    }
    const approvals = shown.needed.map((o) => ({ option: o.option, value: o.value, reference, applied_on: applied, effective_on: effective }));
    const signature = JSON.stringify([shown.changes, approvals, reason]);
    if (!pendingSave || pendingSave.signature !== signature) pendingSave = { signature, key: newKey() };
    const body = { changes: shown.changes, approvals, reason, idempotency_key: pendingSave.key };
    once(
      save,
      async () => {
        try {
          const done = await api(`/api/admin/tables/${encodeURIComponent(tb.table_id)}/config`, { method: "POST", body });
          pendingSave = null;
          showStatus(t("pages.adm_saved", { table: tb.table_id, config: done.new_config_id }));
          await redraw();
        } catch (err) {
          if (err.status !== 0) pendingSave = null;
          showError(err, error);
        }
      },
      error,
    );
  });
  return form;
}
