"""The games' own words in each language, for the parameters of a message.

A message's parameters are language-neutral values: a wager kind (``"banker_pair"``), a side, a
phase, a supervisor's action, a position at the table (``"box 3"``, ``"the dealer"``). A
template marks the parameters that are such words with the format spec ``term``
(``"{kind:term} 投注 {amount} …"``); :func:`term` gives the word in the template's language,
from the SPEC's vocabulary (閒 player, 莊 banker, 原注 ante, 門 box, 莊荷 dealer …). English
templates show the value as it is; a value that is not a known word is shown as it is too.

>>> term("banker_pair", "zh-Hant"), term("box 3", "zh-Hant"), term("bob", "zh-Hant")
('莊對子', '第 3 門', 'bob')
>>> term("banker_pair", "en")
'banker_pair'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

__all__ = ["TERMS", "places", "term"]

TERMS: Final[Mapping[str, Mapping[str, str]]] = {
    "zh-Hant": {
        # sides and wager kinds (BAC-6, BAC-13; 56/2018)
        "player": "閒",
        "banker": "莊",
        "tie": "和",
        "banker_pair": "莊對子",
        "player_pair": "閒對子",
        "lucky_6": "幸運六",
        "jackpot": "累進大獎",
        # Caribbean Stud wagers (CSP-5)
        "ante": "原注",
        "raise": "加注",
        "jackpot wager": "累進大獎注",
        # a table's mode (rounds.TableMode)
        "virtual": "虛擬",
        "live": "真人",
        # who is at the table
        "dealer": "莊荷",
        "the dealer": "莊荷",
        "supervisor": "主管",
        # baccarat round phases
        "betting": "投注中",
        "dealing": "派牌中",
        "complete": "待結算",
        "settled": "已結算",
        "void": "已宣告無效",
        # Caribbean Stud round phases
        "deciding": "待博彩者決定",
        # a supervisor's correction (BAC-10)
        "reassign": "重新分配",
        "withdraw": "收回",
        "mistyped": "輸入錯誤",
        # the choices after a tie (BAC-12)
        "leave": "保留",
        "reduce": "減注",
        "switch": "轉投另一方",
        # the fields of a baccarat command a value is refused for
        "wager": "投注種類",
        "card slot": "牌位",
        "choice after a tie": "和局後的選擇",
        "side": "方",
        "reveal part": "開牌部分",
        "correction": "更正方式",
        # jackpot combinations (CSP-10.2, BAC-13.4)
        "royal_flush": "黃袍麒",
        "straight_flush": "同花順",
        "four_of_a_kind": "四條",
        "full_house": "夫盧",
        "flush": "同花",
        "heavenly_straight": "天堂順",
        "double_pair": "雙對子",
        "three_of_a_kind": "三條",
        "single_pair": "單對子",
        # a jackpot hit recorded before its winning place was (tables.recall, the meters' hits)
        "no place recorded": "未記錄位置",
        # how a wager ended (rounds.Outcome) and a wager not settled yet (tables.recall)
        "won": "贏",
        "lost": "輸",
        "returned": "退回",
        "carried_over": "保留至下一局",
        "in play": "進行中",
        # a card as recorded (tables.recall): a refused card at a live table
        "CardDealt": "派牌",
        "CardRefused": "拒收的牌",
        # the physical acts of a live table (rounds.LIVE_ONLY): a virtual table refuses them
        "DealCard": "輸入派出的牌",
        "ReportExposedCard": "報告誤翻的牌",
        "ReportMisdeal": "報告派牌錯誤",
        "DealtToEmptyBox": "報告派往空門的牌",
        "ShufflerFailure": "報告洗牌機故障",
        "ShuffleAndCut": "記錄人手洗牌及切牌",
        "Correct": "更正實體牌",
        "Cut": "切牌",
        "Burn": "銷牌",
        "CutCardOut": "報告白咭出現",
        "ConfirmCutCardOut": "主管確認白咭出現",
        "OpenShoe": "開新牌靴",
        # the options needing the regulator's approval (BAC-19, BAC-17.7, CSP-13)
        "royal_flush_odds": "黃袍麒加注賠率",
        "bac.burn_rule": "燒牌方式",
        "bac.demo_rounds": "示範局",
        "bac.machine": "自動洗牌派牌機",
        "bac.last_round": "切牌後的最後一局",
        "bac.tie_options": "和局後的選擇",
        "bac.banker_pair": "莊對子投注",
        "bac.player_pair": "閒對子投注",
        "bac.jackpot": "累進大獎投注",
        "bac.lucky_6": "幸運六投注",
        "bac.no_commission": "免佣",
        "bac.fixed_award.heavenly_straight": "天堂順固定獎金",
        "bac.fixed_award.four_of_a_kind": "四條固定獎金",
        "bac.fixed_award.double_pair": "雙對子固定獎金",
        "bac.fixed_award.three_of_a_kind": "三條固定獎金",
        "bac.fixed_award.single_pair": "單對子固定獎金",
        # the actions of the audit log (server.auth.record_action)
        "table open": "開台",
        "table close": "關台",
        "user_add": "新增使用者",
        "user_disable": "停用使用者",
        "user_enable": "啟用使用者",
        "cashier_deposit": "收銀存款",
        "cashier_withdrawal": "收銀提款",
        "audit_archive": "匯出審計檔案",
        "user_unlock": "解除登入鎖定",
    },
}
"""Word → its text, per language other than English."""

_PLACES: Final[Mapping[str, tuple[tuple[re.Pattern[str], str], ...]]] = {
    "zh-Hant": (
        (re.compile(r"box (\d+)"), "第 {0} 門"),
        (re.compile(r"seat (\d+)"), "第 {0} 號座位"),
        (re.compile(r"standing (\d+)"), "第 {0} 號站立投注區"),
        (re.compile(r"command (.+)"), "指令 {0}"),  # an audited command: its type stays as is
    ),
}
"""Numbered places at the table (``"box 3"``), per language other than English."""


def term(value: str, language: str) -> str:
    """``value`` (a word of the games' vocabulary) in ``language``; ``value`` itself in English,
    in an unknown language or when it is not a known word. Never raises."""
    words = TERMS.get(language)
    if words is None:
        return value
    known = words.get(value)
    if known is not None:
        return known
    for pattern, template in _PLACES.get(language, ()):
        match = pattern.fullmatch(value)
        if match is not None:
            return template.format(*match.groups())
    return value


def places(language: str) -> tuple[tuple[str, str], ...]:
    """The numbered places of ``language`` as (regular expression, template with ``{0}``)
    pairs — what :func:`term` applies after :data:`TERMS`, for a page's script to do the same."""
    return tuple((pattern.pattern, template) for pattern, template in _PLACES.get(language, ()))
