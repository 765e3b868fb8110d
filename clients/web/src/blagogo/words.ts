// Words for a 1000 Blagogo table: actions, melds and events for the table's log, from the shared catalogues
// (clients/i18n): `action.blagogo.*` and `event.blagogo.*` as the terminal client says them, and the page's own
// `web.blagogo.*`.
import type { BlagogoAction, BlagogoJokerMeaning } from "../gen/thousand/v1/blagogo_actions_pb";
import { BlagogoRunEnd } from "../gen/thousand/v1/blagogo_actions_pb";
import { BlagogoExhaustion, BlagogoMeldKind, type BlagogoEvent, type BlagogoMeld } from "../gen/thousand/v1/blagogo_events_pb";
import { suitSymbol } from "../cards";
import { capital, t, type Key } from "../i18n";
import { cardLabel, rankLabel } from "./cards";
import type { Names } from "../thousand/words";

/** The words of the 1000 Blagogo table's screen (the log's are in eventLine, the actions' in actionLabel). */
export const TABLE_WORDS = {
  addHere: () => t("web.blagogo.add_here"),
  addReading: (text: string) => t("web.blagogo.add_reading", { text }),
  cannotSelect: (card: string, why: string) => t("web.blagogo.cannot_select", { card, why }),
  notYourTurn: (name: string) => t("web.not_your_turn", { name }),
  drawFirst: () => t("web.blagogo.draw_first"),
  roundOver: () => t("web.blagogo.round_over"),
  spectator: () => t("web.spectator_cannot_play"),
  meldsTitle: (n: number) => t("web.blagogo.melds_title", { n }),
  round: (n: number) => t("web.blagogo.round", { number: n }),
  toPlay: (name: string) => ` · ${t("web.blagogo.to_play", { name })}`,
} as const;

export function meaningLabel(m: BlagogoJokerMeaning): string {
  return m.suit ? `${rankLabel(m.rank)}${suitSymbol(m.suit)}` : rankLabel(m.rank);
}

export function meldLabel(meld: BlagogoMeld): string {
  return t("web.blagogo.meld", { kind: meld.kind === BlagogoMeldKind.RUN ? "run" : "set", cards: meld.cards.map(cardLabel).join(" ") });
}

const END: Record<number, string> = { [BlagogoRunEnd.LOW]: "low", [BlagogoRunEnd.HIGH]: "high" };

export function actionLabel(action: BlagogoAction): string {
  const a = action.action;
  const cards = (list: Parameters<typeof cardLabel>[0][]): string => list.map(cardLabel).join(" ");
  switch (a.case) {
    case "drawFromDeck":
      return capital(t("action.blagogo.draw"));
    case "takeFromBridge":
      return capital(t("action.blagogo.take_bridge", { position: a.value.position + 1 }));
    case "layMelds":
      return capital(t("action.blagogo.lay", { melds: a.value.melds.map((m) => cards(m.cards)).join(" + ") }));
    case "addToMeld":
      return capital(t("action.blagogo.add", { cards: cards(a.value.cards), id: a.value.meldId + 1, end: END[a.value.runEnd] }));
    case "swapJoker":
      return capital(t("action.blagogo.swap", { card: a.value.card ? cardLabel(a.value.card) : "?", id: a.value.meldId + 1 }));
    case "discard":
      return capital(t("action.blagogo.discard", { card: a.value.card ? cardLabel(a.value.card) : "?" }));
    default:
      return t("web.unknown_action");
  }
}

/** Why a round ended with no winner (B-10), in words. */
export function exhaustionLine(reason: BlagogoExhaustion, turnovers: number): string {
  switch (reason) {
    case BlagogoExhaustion.NO_ONE_CAN_GO_OUT:
      return capital(t("event.blagogo.no_one_can_go_out"));
    case BlagogoExhaustion.TURNOVER_LIMIT:
      return capital(t("event.blagogo.turnover_limit", { turnovers }));
    default:
      return capital(t("event.blagogo.deck_exhausted", { turnovers }));
  }
}

export function eventLine(event: BlagogoEvent, names: Names): string | undefined {
  const e = event.event;
  const line = (key: Key, values?: Parameters<typeof t>[1]): string => capital(t(key, values));
  const melds = (list: BlagogoMeld[]): string => list.map(meldLabel).join(", ");
  switch (e.case) {
    case "roundStarted":
      return line("event.blagogo.round_started", { number: e.value.number, dealer: names(e.value.dealer), first: names(e.value.first) });
    case "bridgeStarted":
      return e.value.card ? line("event.blagogo.bridge_started", { card: cardLabel(e.value.card), deck: e.value.deckCount }) : undefined;
    case "bridgeTurnedOver":
      return line("event.blagogo.bridge_turned_over", { count: e.value.count });
    case "deckExhausted":
      return exhaustionLine(e.value.reason, e.value.turnovers);
    case "cardDrawn":
      return line("event.blagogo.card_drawn", { name: names(e.value.seat), card: e.value.card ? cardLabel(e.value.card) : undefined });
    case "bridgeTaken":
      return line("event.blagogo.bridge_taken", { name: names(e.value.seat), position: e.value.position + 1, cards: e.value.cards.map(cardLabel).join(" ") });
    case "meldsLaid":
      return `${line(e.value.opening ? "event.blagogo.opened" : "event.blagogo.melds_laid", { name: names(e.value.seat), points: e.value.points })} ${melds(e.value.melds)}`;
    case "meldExtended":
      return `${line("event.blagogo.meld_extended", {
        name: names(e.value.seat),
        cards: e.value.cards.map(cardLabel).join(" "),
        id: (e.value.meld?.id ?? 0) + 1,
        end: undefined,
      })} ${e.value.meld ? meldLabel(e.value.meld) : ""}`.trim();
    case "jokerSwapped":
      return `${line("event.blagogo.joker_swapped", {
        name: names(e.value.seat),
        card: e.value.card ? cardLabel(e.value.card) : "?",
        id: (e.value.meld?.id ?? 0) + 1,
        joker: e.value.joker ? cardLabel(e.value.joker) : "★",
      })} ${e.value.meld ? meldLabel(e.value.meld) : ""}`.trim();
    case "meldClosed":
      return line("event.blagogo.meld_closed", { id: e.value.meldId + 1, name: names(e.value.owner) });
    case "discarded":
      return line("event.blagogo.discarded", { name: names(e.value.seat), card: e.value.card ? cardLabel(e.value.card) : "?" });
    case "wentOut":
      return line("event.blagogo.went_out", { name: names(e.value.seat), kantrame: e.value.kantrame ? "yes" : "no" });
    case "roundScored":
      return `${line("event.blagogo.round_scored", {
        number: e.value.number,
        winner: e.value.winner === undefined ? undefined : names(e.value.winner),
        kantrame: e.value.kantrame ? "yes" : "no",
      })} ${e.value.totals
        .map((total, s) => t("blagogo.score", { name: names(s), score: total }))
        .join(", ")}`;
    case "gameOver":
      return line("event.blagogo.game_over", { winner: names(e.value.winner) });
    default:
      return undefined;
  }
}
