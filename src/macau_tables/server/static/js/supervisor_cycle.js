// The supervisor's pause and resume of a table's round cycle (tables/cycle.py): one form per
// table row, with the reason (audited: the server records every supervisor's command).

import { reasonForm, send, showStatus } from "./api.js";
import { t } from "./i18n.js";

/** The pause (or, when paused, resume) form of `table` (a row of GET /api/tables), sent as
 * `me`; `after()` is called once it was taken. None for a table this server does not serve. */
export function cycleForm(table, me, after) {
  if (!table.cycle) return [];
  const paused = Boolean(table.cycle.paused);
  const type = paused ? "tables.ResumeCycle" : "tables.PauseCycle";
  return [
    reasonForm({
      id: `cycle-${table.table_id}`,
      label: t("pages.sup_reason_for", { table: table.table_id }),
      button: t(paused ? "pages.sup_cycle_resume" : "pages.sup_cycle_pause"),
      buttonClass: "button-small",
      input: { name: "reason", required: true },
      form: { "data-cycle-form": table.table_id, "data-paused": paused ? "1" : "0" },
      action: async (reason) => {
        await send(`/api/tables/${encodeURIComponent(table.table_id)}/commands`, {
          command: { type, supervisor: me, reason },
        });
        const state = paused ? t("pages.sup_cycle_resume") : t("pages.sup_cycle_paused");
        showStatus(t("pages.sup_cycle_done", { table: table.table_id, state }));
        await after();
      },
    }),
  ];
}
