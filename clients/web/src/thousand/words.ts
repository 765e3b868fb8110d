// Words for a Thousand table: actions, events for the table's log, marks, outcomes, phases.
import type { ThousandAction } from "../gen/thousand/v1/thousand_actions_pb";
import { RedealReason } from "../gen/thousand/v1/thousand_actions_pb";
import { DealKind, Mark, Outcome, type ThousandEvent } from "../gen/thousand/v1/thousand_events_pb";
import { DealPhase } from "../gen/thousand/v1/thousand_views_pb";
import { MARRIAGE_POINTS, cardLabel, suitSymbol } from "../cards";

export type Names = (seat: number | undefined) => string;

export const REDEAL_WORDS: Record<number, string> = {
  [RedealReason.FOUR_NINES]: "four nines",
  [RedealReason.WEAK_TALON]: "weak talon",
  [RedealReason.WEAK_HAND]: "weak hand",
};

export const PHASE_WORDS: Record<number, string> = {
  [DealPhase.DARK]: "dark decision",
  [DealPhase.AUCTION]: "auction",
  [DealPhase.TALON_CHOICE]: "talon choice",
  [DealPhase.EXCHANGE]: "exchange",
  [DealPhase.CONTRACT]: "contract",
  [DealPhase.PLAY]: "play",
  [DealPhase.OVER]: "deal over",
};

export const KIND_WORDS: Record<number, string> = {
  [DealKind.GOLDEN]: "golden deal",
  [DealKind.OBLIGATORY]: "obligatory game",
};

export const OUTCOME_WORDS: Record<number, string> = {
  [Outcome.MADE]: "made",
  [Outcome.FAILED]: "failed",
  [Outcome.CONCEDED]: "conceded (rospis)",
};

export const MARK_WORDS: Record<number, string> = {
  [Mark.BOLT]: "bolt",
  [Mark.BOLT_PENALTY]: "third bolt",
  [Mark.BARREL_ON]: "on the barrel",
  [Mark.BARREL_FALL]: "fell off the barrel",
  [Mark.BARREL_BOTH_FALL]: "both fell off the barrel",
  [Mark.BARREL_BUMPED]: "bumped off the barrel",
  [Mark.BARREL_TIMEOUT]: "barrel time out",
  [Mark.THIRD_FALL_RESET]: "third fall: back to 0",
  [Mark.OBLIGATORY_FAILED]: "failed the obligatory game",
  [Mark.SAMOSVAL]: "555: back to 0",
};

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
    const words = MARK_WORDS[Number(mark)] ?? "";
    seen.set(sign, seen.has(sign) ? `${seen.get(sign)} / ${words}` : words);
  }
  return [...[...seen].map(([sign, words]) => `${sign} ${words}`), "✓ deal verified"].join(" · ");
}

/** The words of the Thousand table's screen (the log's are in eventLine, the actions' in actionLabel). */
/** A number of things in English, singular for one: "1 trick", "2 tricks" (never "1 tricks"). */
export function count(n: number, one: string, other = `${one}s`): string {
  return `${n} ${n === 1 ? one : other}`;
}

export const TABLE_WORDS = {
  leads: (name: string) => `${name} leads.`,
  takes: (name: string, points: number) => `${name} takes the trick (${points})`,
  leader: "led",
  winning: "winning",
  needs: (n: number) => (n > 0 ? `needs ${n} more` : "contract made"),
  points: (n: number) => `${n} pts`,
  marriagePoints: (list: string) => ` (with ${list})`,
  board: "The table",
  tricksCards: (cards: number, tricks: number) => `${count(cards, "card")} · ${count(tricks, "trick")}`,
  talonAndExchange: "Talon and exchange",
  talonAndExchangeHidden: "Talon and exchange (this deal)",
  cannotPlay: (card: string, why: string) => `${card} cannot be played now: ${why}.`,
  notYourTurn: (name: string) => `it is ${name}'s turn`,
  notNow: "no card is played at this moment of the deal",
  followSuit: (suit: string) => `you must follow ${suit}`,
  playTrump: (suit: string) => `you have no card of the suit led, so you must play a trump (${suit})`,
  beat: (suit: string) => `you must beat the trick with a higher ${suit}`,
  notAllowed: "the rules do not allow it here",
  exchangeFirst: "first give one card to each opponent",
  spectator: "you are watching: spectators do not play",
} as const;

/** What choosing the action does, in words (also its screen-reader label). */
export function actionLabel(action: ThousandAction, names: Names): string {
  const a = action.action;
  switch (a.case) {
    case "bid":
      return `Bid ${a.value.value}`;
    case "passBid":
      return "Pass";
    case "declareDark":
      return "Bid 120 dark, without looking at your cards";
    case "declineDark":
      return "Look at your cards (no dark)";
    case "demandRedeal":
      return `Demand a redeal: ${REDEAL_WORDS[a.value.reason] ?? "reason " + a.value.reason}`;
    case "chooseTalon":
      return `Take talon ${a.value.index + 1}`;
    case "giveCard":
      return `Give ${a.value.card ? cardLabel(a.value.card) : "?"} to ${names(a.value.toSeat)}`;
    case "discardCard":
      return `Put ${a.value.card ? cardLabel(a.value.card) : "?"} into the other talon`;
    case "nameContract":
      return `Play for ${a.value.value}`;
    case "concede":
      return "Concede the deal (rospis)";
    case "playCard": {
      const card = a.value.card;
      if (!card) return "Play a card";
      if (a.value.marriage)
        return `Play ${cardLabel(card)} and declare the ${suitSymbol(card.suit)} marriage (${MARRIAGE_POINTS[card.suit]})`;
      return `Play ${cardLabel(card)}`;
    }
    default:
      return "Unknown action";
  }
}

/** One line of the table's log for an event, or undefined for one not worth a line. */
export function eventLine(event: ThousandEvent, names: Names): string | undefined {
  const e = event.event;
  switch (e.case) {
    case "dealStarted": {
      const kind = KIND_WORDS[e.value.kind];
      return `Deal ${e.value.number}${kind ? ` (${kind})` : ""}: ${names(e.value.dealer)} deals.`;
    }
    case "darkDeclared":
      return `${names(e.value.seat)} bids 120 dark.`;
    case "darkDeclined":
      return `${names(e.value.seat)} looks at the cards (no dark).`;
    case "bidMade":
      return `${names(e.value.seat)} bids ${e.value.value}${e.value.forced ? " (forced)" : ""}.`;
    case "passed":
      return `${names(e.value.seat)} passes.`;
    case "auctionWon":
      return `${names(e.value.seat)} wins the auction at ${e.value.bid}.`;
    case "redealDemanded":
      return `${names(e.value.seat)} demands a redeal: ${REDEAL_WORDS[e.value.reason] ?? "?"}.`;
    case "talonChosen":
      return `${names(e.value.seat)} takes talon ${e.value.index + 1}.`;
    case "talonTaken":
      return e.value.cardsHidden
        ? `${names(e.value.seat)} takes the talon face down.`
        : `${names(e.value.seat)} takes the talon: ${e.value.cards.map(cardLabel).join(" ")}.`;
    case "cardGiven": {
      const what = e.value.card ? cardLabel(e.value.card) : "a card";
      return e.value.toSeat === undefined
        ? `${names(e.value.seat)} puts ${what} into the other talon.`
        : `${names(e.value.seat)} gives ${what} to ${names(e.value.toSeat)}.`;
    }
    case "contractNamed":
      return `${names(e.value.seat)} plays for ${e.value.value}.`;
    case "conceded":
      return `${names(e.value.seat)} concedes ${e.value.contract} (rospis).`;
    case "marriageDeclared":
      return `${names(e.value.seat)} declares the ${suitSymbol(e.value.suit)} marriage (${e.value.points}): trump is ${suitSymbol(e.value.suit)}.`;
    case "cardPlayed":
      return e.value.card ? `${names(e.value.seat)} plays ${cardLabel(e.value.card)}.` : undefined;
    case "trickTaken":
      return `${names(e.value.seat)} takes trick ${e.value.number} (${count(e.value.points, "point")}).`;
    case "lastTalonTaken":
      return `${names(e.value.seat)} takes the other talon (${count(e.value.points, "point")}).`;
    case "sheetMarked":
      return `${names(e.value.seat)}: ${MARK_WORDS[e.value.mark] ?? "mark"}${e.value.points ? ` (${signed(e.value.points)})` : ""}.`;
    case "dealScored": {
      const d = e.value;
      return `Deal ${d.number}: ${names(d.declarer)} ${OUTCOME_WORDS[d.outcome] ?? "?"} ${d.contract}. Scores: ${d.totals
        .map((t, s) => `${names(s)} ${t}`)
        .join(", ")}.`;
    }
    case "gameOver":
      return `Game over: ${names(e.value.winner)} wins.`;
    default:
      return undefined;
  }
}

export function signed(n: number): string {
  return n > 0 ? `+${n}` : `${n}`;
}
