// The baccarat part of a table's options form on the administrator's page (admin_options.js
// loads it by the table's game): the form's sections — every field of BaccaratRules the API
// takes — the jackpot's fixed awards (BAC-17) and the note under the exact math. The field
// kinds and the shared sections are admin_options.js's.

import { CYCLE, TIE_OPTIONS, jackpotFields } from "../admin_options.js";

/** The combinations with a fixed jackpot award (BAC-17), in the paytable's order. */
export const AWARDS = ["heavenly_straight", "four_of_a_kind", "double_pair", "three_of_a_kind", "single_pair"];

/** The form's sections: [legend key, fields]. */
export const SECTIONS = [
  [
    "pages.adm_s_paytable",
    [
      {
        path: ["commission"],
        kind: "choice",
        label: "pages.adm_f_commission",
        choices: [["standard", "pages.adm_c_commission"], ["no_commission", "pages.adm_c_no_commission"]],
      },
      { path: ["tie_options"], kind: "set", label: "pages.adm_f_tie_options", choices: TIE_OPTIONS },
    ],
  ],
  [
    "pages.adm_s_wagers",
    [
      { path: ["bet_unit"], kind: "money", label: "pages.adm_f_bet_unit" },
      { path: ["limits"], kind: "limits", label: "pages.adm_f_limits" },
      { path: ["max_difference"], kind: "moneyOrNone", label: "pages.adm_f_max_difference" },
      { path: ["seats"], kind: "whole", label: "pages.adm_f_seats" },
      { path: ["standing_areas"], kind: "whole", label: "pages.adm_f_standing_areas" },
    ],
  ],
  [
    "pages.adm_s_holding",
    [
      { path: ["card_holding"], kind: "bool", label: "pages.adm_f_card_holding" },
      { path: ["holding_timeout_seconds"], kind: "whole", label: "pages.adm_f_holding_timeout_seconds" },
    ],
  ],
  ["pages.paysection_jackpot", jackpotFields(AWARDS)],
  [
    "pages.adm_s_shoe",
    [
      { path: ["shoe", "decks"], kind: "whole", label: "pages.adm_f_decks" },
      { path: ["shoe", "cut_card_behind"], kind: "whole", label: "pages.adm_f_cut_card_behind" },
      {
        path: ["shoe", "burn_rule"],
        kind: "choice",
        label: "pages.adm_f_burn_rule",
        choices: [["decks", "pages.adm_c_burn_decks"], ["first_card", "pages.adm_c_burn_first_card"], ["fixed", "pages.adm_c_burn_fixed"]],
      },
      { path: ["shoe", "fixed_burn"], kind: "whole", label: "pages.adm_f_fixed_burn" },
      {
        path: ["shoe", "last_round"],
        kind: "choice",
        label: "pages.adm_f_last_round",
        choices: [["this_round", "pages.adm_c_last_this_round"], ["one_more", "pages.adm_c_last_one_more"]],
      },
      { path: ["shoe", "demo_rounds"], kind: "whole", label: "pages.adm_f_demo_rounds" },
      { path: ["shoe", "per_round_burn"], kind: "bool", label: "pages.adm_f_per_round_burn" },
      { path: ["shoe", "machine"], kind: "bool", label: "pages.adm_f_machine" },
    ],
  ],
  ["pages.adm_s_cycle", CYCLE],
];

/** The note under the exact math (what the figures assume). */
export const MATH_NOTE = "pages.adm_math_note_baccarat";
