// Words for a 1000 Blagogo table: actions, melds and events for the table's log.
import type { BlagogoAction, BlagogoJokerMeaning } from "../gen/thousand/v1/blagogo_actions_pb";
import { BlagogoRunEnd } from "../gen/thousand/v1/blagogo_actions_pb";
import { BlagogoExhaustion, BlagogoMeldKind, type BlagogoEvent, type BlagogoMeld } from "../gen/thousand/v1/blagogo_events_pb";
import { suitSymbol } from "../cards";
import { cardLabel, rankLabel } from "./cards";
import { count, type Names } from "../thousand/words";

/** The words of the 1000 Blagogo table's screen (the log's are in eventLine, the actions' in actionLabel). */
export const TABLE_WORDS = {
  addHere: "Add the selection here",
  addReading: (text: string) => `Add ${text}`,
  cannotSelect: (card: string, why: string) => `${card} cannot be chosen now: ${why}.`,
  notYourTurn: (name: string) => `it is ${name}'s turn`,
  drawFirst: "draw first, from the deck or the bridge",
  roundOver: "the round is over",
  spectator: "you are watching: spectators do not play",
  meldsTitle: (n: number) => `Melds (${n})`,
  board: "The table",
  round: (n: number) => `Round ${n}`,
  toPlay: (name: string) => ` · ${name} to play`,
  notOpened: "You have not opened yet: lay melds worth the opening minimum before adding to anyone's.",
} as const;

export function meaningLabel(m: BlagogoJokerMeaning): string {
  return m.suit ? `${rankLabel(m.rank)}${suitSymbol(m.suit)}` : rankLabel(m.rank);
}

export function meldLabel(meld: BlagogoMeld): string {
  const kind = meld.kind === BlagogoMeldKind.RUN ? "run" : "set";
  return `${kind} ${meld.cards.map(cardLabel).join(" ")}`;
}

export function actionLabel(action: BlagogoAction): string {
  const a = action.action;
  switch (a.case) {
    case "drawFromDeck":
      return "Draw from the deck";
    case "takeFromBridge":
      return `Take the bridge from position ${a.value.position + 1}`;
    case "layMelds":
      return `Lay ${a.value.melds.map((m) => m.cards.map(cardLabel).join(" ")).join(" and ")}`;
    case "addToMeld": {
      const end =
        a.value.runEnd === BlagogoRunEnd.LOW ? " at the low end" : a.value.runEnd === BlagogoRunEnd.HIGH ? " at the high end" : "";
      return `Add ${a.value.cards.map(cardLabel).join(" ")} to meld ${a.value.meldId + 1}${end}`;
    }
    case "swapJoker":
      return `Put ${a.value.card ? cardLabel(a.value.card) : "?"} in place of the joker of meld ${a.value.meldId + 1}`;
    case "discard":
      return `Discard ${a.value.card ? cardLabel(a.value.card) : "?"}`;
    default:
      return "Unknown action";
  }
}

/** Why a round ended with no winner (B-10), in words. */
export function exhaustionLine(reason: BlagogoExhaustion, turnovers: number): string {
  switch (reason) {
    case BlagogoExhaustion.NO_ONE_CAN_GO_OUT:
      return "The round ended: no one could go out. No winner.";
    case BlagogoExhaustion.TURNOVER_LIMIT:
      return `The deck ran out after ${turnovers} turnover(s), the table's limit: the round ends with no winner.`;
    default:
      return "Nothing left to draw: the round ends with no winner.";
  }
}

export function eventLine(event: BlagogoEvent, names: Names): string | undefined {
  const e = event.event;
  switch (e.case) {
    case "roundStarted":
      return `Round ${e.value.number}: ${names(e.value.dealer)} deals, ${names(e.value.first)} plays first.`;
    case "bridgeStarted":
      return e.value.card ? `The bridge starts with ${cardLabel(e.value.card)}; ${count(e.value.deckCount, "card")} in the deck.` : undefined;
    case "bridgeTurnedOver":
      return `The deck ran out: the bridge is turned over (${count(e.value.count, "card")}).`;
    case "deckExhausted":
      return exhaustionLine(e.value.reason, e.value.turnovers);
    case "cardDrawn":
      return `${names(e.value.seat)} draws${e.value.card ? ` ${cardLabel(e.value.card)}` : " a card"}.`;
    case "bridgeTaken":
      return `${names(e.value.seat)} takes ${e.value.cards.map(cardLabel).join(" ")} from the bridge (position ${e.value.position + 1}).`;
    case "meldsLaid":
      return `${names(e.value.seat)} ${e.value.opening ? "opens with" : "lays"} ${e.value.melds.map(meldLabel).join(", ")} (${count(e.value.points, "point")}).`;
    case "meldExtended":
      return `${names(e.value.seat)} adds ${e.value.cards.map(cardLabel).join(" ")} to meld ${(e.value.meld?.id ?? 0) + 1}.`;
    case "jokerSwapped":
      return `${names(e.value.seat)} puts ${e.value.card ? cardLabel(e.value.card) : "?"} in place of ${e.value.joker ? cardLabel(e.value.joker) : "a joker"}.`;
    case "meldClosed":
      return `Meld ${e.value.meldId + 1} of ${names(e.value.owner)} is complete and closed.`;
    case "discarded":
      return `${names(e.value.seat)} discards ${e.value.card ? cardLabel(e.value.card) : "?"}.`;
    case "wentOut":
      return `${names(e.value.seat)} goes out${e.value.kantrame ? " — kantrame!" : ""}.`;
    case "roundScored":
      return `Round ${e.value.number} scored: ${e.value.totals.map((t, s) => `${names(s)} ${t}`).join(", ")}.`;
    case "gameOver":
      return `Game over: ${names(e.value.winner)} wins.`;
    default:
      return undefined;
  }
}
