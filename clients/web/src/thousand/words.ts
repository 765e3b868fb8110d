// Words for a Thousand table: actions, events for the table's log, marks, outcomes, phases; every one from the
// shared catalogues (clients/i18n): the glossary's terms, `action.thousand.*` and `event.thousand.*` as the
// terminal client says them, and the page's own `web.thousand.*`.
import type { ThousandAction } from "../gen/thousand/v1/thousand_actions_pb";
import { RedealReason } from "../gen/thousand/v1/thousand_actions_pb";
import { DealKind, Mark, Outcome, type ThousandEvent } from "../gen/thousand/v1/thousand_events_pb";
import { DealPhase } from "../gen/thousand/v1/thousand_views_pb";
import { MARRIAGE_POINTS, cardLabel, suitSymbol } from "../cards";
import { capital, formatNumber, t, type Key } from "../i18n";

export type Names = (seat: number | undefined) => string;

const REDEAL_TERMS: Record<number, Key> = {
  [RedealReason.FOUR_NINES]: "term.redeal_four_nines",
  [RedealReason.WEAK_TALON]: "term.redeal_weak_talon",
  [RedealReason.WEAK_HAND]: "term.redeal_weak_hand",
};

const PHASE_TERMS: Record<number, Key> = {
  [DealPhase.DARK]: "term.phase_dark",
  [DealPhase.AUCTION]: "term.phase_auction",
  [DealPhase.TALON_CHOICE]: "term.phase_talon_choice",
  [DealPhase.EXCHANGE]: "term.phase_exchange",
  [DealPhase.CONTRACT]: "term.phase_contract",
  [DealPhase.PLAY]: "term.phase_play",
  [DealPhase.OVER]: "term.phase_over",
};

const KIND_TERMS: Record<number, Key> = {
  [DealKind.GOLDEN]: "term.golden_deal",
  [DealKind.OBLIGATORY]: "term.obligatory_game",
};

const OUTCOME_IDS: Record<number, string> = {
  [Outcome.MADE]: "made",
  [Outcome.FAILED]: "failed",
  [Outcome.CONCEDED]: "conceded",
};

const MARK_TERMS: Record<number, Key> = {
  [Mark.BOLT]: "term.mark_bolt",
  [Mark.BOLT_PENALTY]: "term.mark_bolt_penalty",
  [Mark.BARREL_ON]: "term.mark_barrel_on",
  [Mark.BARREL_FALL]: "term.mark_barrel_fall",
  [Mark.BARREL_BOTH_FALL]: "term.mark_barrel_both_fall",
  [Mark.BARREL_BUMPED]: "term.mark_barrel_bumped",
  [Mark.BARREL_TIMEOUT]: "term.mark_barrel_timeout",
  [Mark.THIRD_FALL_RESET]: "term.mark_third_fall_reset",
  [Mark.OBLIGATORY_FAILED]: "term.mark_obligatory_failed",
  [Mark.SAMOSVAL]: "term.mark_samosval",
};

function term(table: Record<number, Key>, value: number): string {
  const key = table[value];
  return key ? t(key) : "";
}

/** A redeal's reason in words ("four nines"). */
export const redealWords = (reason: number): string => term(REDEAL_TERMS, reason);
/** A deal phase in words ("auction"). */
export const phaseWords = (phase: number): string => term(PHASE_TERMS, phase);
/** A deal's kind in words: "golden deal", "obligatory game", nothing for a normal deal. */
export const kindWords = (kind: number): string => term(KIND_TERMS, kind);
/** A sheet mark in words ("third bolt"). */
export const markWords = (mark: number): string => term(MARK_TERMS, mark);
/** How the declarer's deal ended, in words ("made", "failed", "conceded (rospis)"). */
export const outcomeWords = (outcome: number): string => t("web.thousand.outcome", { outcome: OUTCOME_IDS[outcome] });

/** Short signs for the score sheet's cells. */
export const MARK_SIGNS: Record<number, string> = {
  [Mark.BOLT]: "•",
  [Mark.BOLT_PENALTY]: "•••",
  [Mark.BARREL_ON]: "B↑",
  [Mark.BARREL_FALL]: "B↓",
  [Mark.BARREL_BOTH_FALL]: "B↓↓",
  [Mark.BARREL_BUMPED]: "B↓",
  [Mark.BARREL_TIMEOUT]: "B×",
  [Mark.THIRD_FALL_RESET]: "0",
  [Mark.OBLIGATORY_FAILED]: "0",
  [Mark.SAMOSVAL]: "555",
};

/** The signs' legend under the score sheet: every sign the sheet can show, once. */
export function markLegend(): string {
  const seen = new Map<string, string>();
  for (const [mark, sign] of Object.entries(MARK_SIGNS)) {
    const words = markWords(Number(mark));
    seen.set(sign, seen.has(sign) ? `${seen.get(sign)} / ${words}` : words);
  }
  return [...[...seen].map(([sign, words]) => `${sign} ${words}`), `✓ ${t("web.thousand.deal_verified")}`].join(" · ");
}

/** The words of the Thousand table's screen (the log's are in eventLine, the actions' in actionLabel). */
export const TABLE_WORDS = {
  leads: (name: string) => t("web.thousand.leads", { name }),
  takes: (name: string, points: number) => t("web.thousand.takes", { name, points }),
  leader: () => t("web.thousand.leader"),
  winning: () => t("web.thousand.winning"),
  needs: (n: number) => t("web.thousand.needs", { n: Math.max(0, n) }),
  points: (n: number) => t("web.thousand.points", { n }),
  marriagePoints: (list: string) => t("web.thousand.with_marriages", { list }),
  tricksCards: (cards: number, tricks: number) => t("web.thousand.cards_tricks", { cards, tricks }),
  talonAndExchange: () => t("web.thousand.talon_and_exchange"),
  cannotPlay: (card: string, why: string) => t("web.thousand.cannot_play", { card, why }),
  notYourTurn: (name: string) => t("web.not_your_turn", { name }),
  notNow: () => t("web.thousand.not_now"),
  followSuit: (suit: string) => t("web.thousand.follow_suit", { suit }),
  playTrump: (suit: string) => t("web.thousand.play_trump", { suit }),
  beat: (suit: string) => t("web.thousand.beat", { suit }),
  notAllowed: () => t("web.thousand.not_allowed"),
  spectator: () => t("web.spectator_cannot_play"),
} as const;

/** What choosing the action does, in words (also its screen-reader label). */
export function actionLabel(action: ThousandAction, names: Names): string {
  const a = action.action;
  const card = (c: Parameters<typeof cardLabel>[0] | undefined): string => (c ? cardLabel(c) : "?");
  switch (a.case) {
    case "bid":
      return capital(t("action.thousand.bid", { value: a.value.value }));
    case "passBid":
      return capital(t("action.thousand.pass"));
    case "declareDark":
      return capital(t("action.thousand.declare_dark"));
    case "declineDark":
      return capital(t("action.thousand.decline_dark"));
    case "demandRedeal":
      return capital(t("action.thousand.demand_redeal", { reason: redealWords(a.value.reason) || String(a.value.reason) }));
    case "chooseTalon":
      return capital(t("action.thousand.choose_talon", { index: a.value.index + 1 }));
    case "giveCard":
      return capital(t("action.thousand.give_card", { card: card(a.value.card), to: names(a.value.toSeat) }));
    case "discardCard":
      return capital(t("action.thousand.discard_card", { card: card(a.value.card) }));
    case "nameContract":
      return capital(t("action.thousand.name_contract", { value: a.value.value }));
    case "concede":
      return capital(t("action.thousand.concede"));
    case "playCard": {
      const c = a.value.card;
      if (!c) return capital(t("action.thousand.play_card", { card: "?" }));
      if (a.value.marriage)
        return capital(t("action.thousand.play_marriage", { card: cardLabel(c), suit: suitSymbol(c.suit), points: MARRIAGE_POINTS[c.suit] }));
      return capital(t("action.thousand.play_card", { card: cardLabel(c) }));
    }
    default:
      return t("web.unknown_action");
  }
}

/** One line of the table's log for an event, or undefined for one not worth a line. `leading`: whether a card
 * played now opens the trick (the view before the event). */
export function eventLine(event: ThousandEvent, names: Names, leading = false): string | undefined {
  const e = event.event;
  const line = (key: Key, values: Parameters<typeof t>[1]): string => capital(t(key, values));
  switch (e.case) {
    case "dealStarted": {
      const kind = e.value.kind === DealKind.GOLDEN ? "golden" : e.value.kind === DealKind.OBLIGATORY ? "obligatory" : "normal";
      return line("event.thousand.deal_started", { number: e.value.number, dealer: names(e.value.dealer), kind: t(`term.deal_${kind}`) });
    }
    case "darkDeclared":
      return line("event.thousand.dark_declared", { name: names(e.value.seat) });
    case "darkDeclined":
      return line("event.thousand.dark_declined", { name: names(e.value.seat) });
    case "bidMade":
      return line("event.thousand.bid_made", { name: names(e.value.seat), value: e.value.value, how: e.value.forced ? "forced" : "free" });
    case "passed":
      return line("event.thousand.passed", { name: names(e.value.seat) });
    case "auctionWon":
      return line("event.thousand.auction_won", { name: names(e.value.seat), bid: e.value.bid });
    case "redealDemanded":
      return line("event.thousand.redeal_demanded", { name: names(e.value.seat), reason: redealWords(e.value.reason) || "?" });
    case "talonChosen":
      return line("event.thousand.talon_chosen", { name: names(e.value.seat), index: e.value.index + 1 });
    case "talonTaken":
      return line("event.thousand.talon_taken", {
        name: names(e.value.seat),
        face_up: e.value.cardsHidden ? "no" : "yes",
        cards: e.value.cardsHidden ? undefined : e.value.cards.map(cardLabel).join(" "),
      });
    case "cardGiven": {
      const card = e.value.card ? cardLabel(e.value.card) : undefined;
      return e.value.toSeat === undefined
        ? line("event.thousand.card_discarded", { name: names(e.value.seat), card })
        : line("event.thousand.card_given", { name: names(e.value.seat), card, to: names(e.value.toSeat) });
    }
    case "contractNamed":
      return line("event.thousand.contract_named", { name: names(e.value.seat), value: e.value.value });
    case "conceded":
      return line("event.thousand.conceded", { name: names(e.value.seat), contract: e.value.contract });
    case "marriageDeclared":
      return line("event.thousand.marriage_declared", { name: names(e.value.seat), suit: suitSymbol(e.value.suit), points: e.value.points });
    case "cardPlayed":
      return e.value.card ? line("event.thousand.card_played", { name: names(e.value.seat), card: cardLabel(e.value.card), lead: leading ? "yes" : "no" }) : undefined;
    case "trickTaken":
      return line("event.thousand.trick_taken", { name: names(e.value.seat), number: e.value.number, points: e.value.points });
    case "lastTalonTaken":
      return line("event.thousand.last_talon_taken", { name: names(e.value.seat), cards: e.value.cards.map(cardLabel).join(" "), points: e.value.points });
    case "sheetMarked":
      return line("event.thousand.sheet_marked", { name: names(e.value.seat), mark: markWords(e.value.mark) || "?", points: e.value.points });
    case "dealScored": {
      const d = e.value;
      const kind = d.kind === DealKind.GOLDEN ? t("term.deal_golden") : d.kind === DealKind.OBLIGATORY ? t("term.deal_obligatory") : undefined;
      const scored = t("event.thousand.deal_scored", {
        number: d.number,
        kind,
        name: names(d.declarer),
        outcome: OUTCOME_IDS[d.outcome] ?? "conceded",
        contract: d.contract,
        doubled: d.doubled ? "yes" : "no",
      });
      const scores = d.totals.map((total, s) => t("event.thousand.score_change", { name: names(s), delta: d.deltas[s] ?? 0, total })).join(", ");
      return `${capital(scored)} — ${t("event.thousand.deal_scores", { scores })}`;
    }
    case "gameOver": {
      const standings = e.value.standings
        .map((s) => t("event.thousand.standing", { place: s.place, name: names(s.seat), score: s.score, payout: s.payout }))
        .join(", ");
      return line("event.thousand.game_over", { winner: names(e.value.winner), standings });
    }
    default:
      return undefined;
  }
}

/** A change of score with its sign ("+120", "−35"), as the language writes numbers. */
export function signed(n: number): string {
  return formatNumber(n, { signDisplay: "exceptZero", useGrouping: false });
}
