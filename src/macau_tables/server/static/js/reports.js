// Verify the store (macau-tables verify), the daily report of a gaming day (JSON shown, CSV
// downloaded) and the audit archive download (admin).

import { api, once } from "./api.js";
import { money, t, term } from "./i18n.js";
import { el } from "./tables_info.js";

const COUNT = {
  tables: "pages.rep_count_tables",
  events: "pages.rep_count_events",
  rounds: "pages.rep_count_rounds",
  settlements: "pages.rep_count_settlements",
  transactions: "pages.rep_count_transactions",
  accounts: "pages.rep_count_accounts",
  meters: "pages.rep_count_meters",
  shoes: "pages.rep_count_shoes",
  "audit entries": "pages.rep_count_audit",
  voids: "pages.rep_count_voids",
  "voids before grounds": "pages.rep_count_legacy_voids",
};

const verifyButton = document.getElementById("verify-run");
verifyButton.addEventListener("click", () =>
  once(verifyButton, async () => {
    const box = document.getElementById("verify-result");
    const found = await api("/api/verify");
    const counts = el("dl", { class: "counts" });
    for (const [key, value] of Object.entries(found.counts || {})) {
      counts.append(el("dt", { text: COUNT[key] ? t(COUNT[key]) : term(key) }), el("dd", { text: value }));
    }
    const verdict = found.ok
      ? el("p", { class: "notice notice-status", "data-verified": "ok", text: t("pages.rep_verify_ok") })
      : el("p", { class: "notice notice-error", "data-verified": "failed", text: t("pages.rep_verify_failed", { text: (found.failure && found.failure.text) || "" }) });
    box.replaceChildren(verdict, counts);
  }),
);

const COLUMNS = [
  ["table_id", "pages.rep_col_table", false],
  ["rounds", "pages.rep_col_rounds", false],
  ["voided", "pages.rep_col_voided", false],
  ["drop", "pages.rep_col_drop", true],
  ["win", "pages.rep_col_win", true],
  ["hold_percent", "pages.rep_col_hold", false],
  ["commission", "pages.rep_col_commission", true],
  ["contributions", "pages.rep_col_contributions", true],
  ["awards", "pages.rep_col_awards", true],
  ["awards_from_house", "pages.rep_col_awards_from_house", true],
  ["awards_held", "pages.rep_col_awards_held", true],
  ["awards_released", "pages.rep_col_awards_released", true],
  ["carried", "pages.rep_col_carried", true],
  ["liability", "pages.rep_col_liability", true],
];

// Per betting position (STANDARDS: meters for drop, wagers and payouts per betting position).
const POSITION_COLUMNS = [
  ["table_id", "pages.rep_col_table", false],
  ["position", "pages.rep_col_position", false],
  ["wagers", "pages.rep_col_wagers", false],
  ["drop", "pages.rep_col_drop", true],
  ["paid", "pages.rep_col_paid", true],
  ["commission", "pages.rep_col_commission", true],
  ["contributions", "pages.rep_col_contributions", true],
  ["awards", "pages.rep_col_awards", true],
  ["win", "pages.rep_col_win", true],
];

function dataTable(attrs, caption, columns, rows) {
  return el(
    "table",
    { class: "data", ...attrs },
    el("caption", { text: caption }),
    el("thead", {}, el("tr", {}, ...columns.map(([, key, isMoney]) => el("th", { scope: "col", class: isMoney ? "num" : null, text: t(key) })))),
    el("tbody", {}, ...rows.map((row) => el("tr", {}, ...columns.map((column) => el(column[0] === "table_id" ? "th" : "td", { class: column[2] ? "num" : null, scope: column[0] === "table_id" ? "row" : null, text: cell(row, column) }))))),
  );
}

function cell(row, [key, , isMoney]) {
  const value = row[key];
  if (value === null || value === undefined || value === "") return "—";
  if (key === "table_id" && value === "total") return t("pages.rep_total");
  if (key === "position") return term(value); // "box 3": 第 3 門 (the glossary)
  return isMoney ? money(value) : String(value);
}

const form = document.getElementById("report-form");
const dayInput = document.getElementById("report-day");
function links() {
  const day = encodeURIComponent(dayInput.value);
  document.getElementById("report-csv").href = `/api/reports/daily?day=${day}&format=csv`;
  document.getElementById("positions-csv").href = `/api/reports/positions?day=${day}&format=csv`;
  const archive = document.getElementById("archive-download");
  if (archive) archive.href = `/api/audit/archive?day=${day}`;
}
dayInput.addEventListener("change", links);
form.addEventListener("submit", (event) => {
  event.preventDefault();
  links();
  once(document.getElementById("report-show"), async () => {
    const report = await api("/api/reports/daily", { query: { day: dayInput.value } });
    const positions = await api("/api/reports/positions", { query: { day: dayInput.value } });
    document.getElementById("report-result").replaceChildren(
      dataTable({ "data-report": report.day }, t("pages.rep_caption", { day: report.day }), COLUMNS, [...report.tables, report.totals]),
      dataTable({ "data-positions": positions.day }, t("pages.rep_positions_caption", { day: positions.day }), POSITION_COLUMNS, positions.positions),
    );
  });
});
