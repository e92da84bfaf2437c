// The Caribbean Stud Poker part of a table's options form on the administrator's page
// (admin_options.js loads it by the table's game): the form's sections — every field of
// CaribbeanRules the API takes — the jackpot's fixed awards (CSP-10.2) and the note under the
// exact math. The field kinds and the shared sections are admin_options.js's.

import { CYCLE, jackpotFields } from "../admin_options.js";

/** The combinations with a fixed jackpot award (CSP-10.2), in the paytable's order. */
export const AWARDS = ["royal_flush", "straight_flush", "four_of_a_kind", "full_house", "flush"];

/** The form's sections: [legend key, fields]. */
export const SECTIONS = [
  [
    "pages.adm_s_paytable",
    [
      { path: ["royal_flush_odds"], kind: "whole", label: "pages.adm_f_royal_flush_odds", min: 50, max: 100 },
      { path: ["max_payout_per_box"], kind: "money", label: "pages.adm_f_max_payout_per_box" },
    ],
  ],
  [
    "pages.adm_s_wagers",
    [
      { path: ["bet_unit"], kind: "money", label: "pages.adm_f_bet_unit" },
      { path: ["ante_minimum"], kind: "money", label: "pages.adm_f_ante_minimum" },
      { path: ["ante_maximum"], kind: "money", label: "pages.adm_f_ante_maximum" },
      { path: ["boxes"], kind: "fixed", label: "pages.adm_f_boxes" },
    ],
  ],
  ["pages.paysection_jackpot", jackpotFields(AWARDS)],
  [
    "pages.adm_s_dealing",
    [
      {
        path: ["dealing_procedure"],
        kind: "choice",
        label: "pages.adm_f_dealing_procedure",
        choices: [["shuffler", "pages.adm_c_shuffler"], ["shoe", "pages.adm_c_by_hand"]],
      },
      { path: ["decision_timeout_seconds"], kind: "whole", label: "pages.adm_f_decision_timeout_seconds" },
    ],
  ],
  ["pages.adm_s_cycle", CYCLE],
];

/** The note under the exact math (what the figures assume). */
export const MATH_NOTE = "pages.adm_math_note_caribbean";
