// The jackpot combinations' names in the page's language (CSP-10.3, BAC-17).

import { t } from "./i18n.js";

const COMBINATION = {
  royal_flush: "pages.combo_royal_flush",
  straight_flush: "pages.combo_straight_flush",
  four_of_a_kind: "pages.combo_four_of_a_kind",
  full_house: "pages.combo_full_house",
  flush: "pages.combo_flush",
  heavenly_straight: "pages.combo_heavenly_straight",
  three_of_a_kind: "pages.combo_three_of_a_kind",
  double_pair: "pages.combo_double_pair",
  single_pair: "pages.combo_single_pair",
};

export function combinationName(name) {
  return COMBINATION[name] ? t(COMBINATION[name]) : name;
}
