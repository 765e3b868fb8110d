// A 1000 Blagogo table followed from its events: the BlagogoView kept current between the server's views,
// as clients/cli/blagogo_tui.py's advance() does for the terminal (B-21: only a dealt hand and a card drawn
// from the deck are hidden, and only from the other seats). Everything but `toAct` and `legalActions`, which
// only a Turn says, is kept; test/logic/tracker.test.ts compares it with the server's view at every Turn.
import { clone, create } from "@bufbuild/protobuf";
import { BlagogoCardListSchema, type BlagogoCard } from "../gen/thousand/v1/blagogo_cards_pb";
import type { BlagogoEvent, BlagogoMeld } from "../gen/thousand/v1/blagogo_events_pb";
import type { BlagogoRules } from "../gen/thousand/v1/blagogo_rules_pb";
import { BlagogoPhase, BlagogoViewSchema, type BlagogoView } from "../gen/thousand/v1/blagogo_views_pb";
import { byIndex, sameCard, without } from "./cards";

export function emptyView(rules: BlagogoRules, viewer: number | undefined, firstDealer: number): BlagogoView {
  const n = rules.players ?? 4;
  return create(BlagogoViewSchema, {
    viewer,
    rules,
    dealer: firstDealer,
    cardCounts: Array<number>(n).fill(0),
    knownCards: Array.from({ length: n }, () => create(BlagogoCardListSchema)),
    opened: Array<boolean>(n).fill(false),
    scores: Array<number>(n).fill(0),
  });
}

export class BlagogoTracker {
  view: BlagogoView | undefined;

  constructor(readonly viewer: number | undefined) {}

  reset(view: BlagogoView): void {
    this.view = clone(BlagogoViewSchema, view);
  }

  apply(event: BlagogoEvent): void {
    const e = event.event;
    if (e.case === "gameStarted") {
      if (e.value.rules) this.view = emptyView(e.value.rules, this.viewer, e.value.firstDealer);
      return;
    }
    const v = this.view;
    if (v === undefined) return;
    const me = this.viewer;
    switch (e.case) {
      case "roundStarted": {
        const n = v.cardCounts.length;
        Object.assign(v, {
          roundNumber: e.value.number,
          dealer: e.value.dealer,
          phase: BlagogoPhase.PLAY, // the first player's first turn has no draw (B-8)
          hand: [],
          bridge: [],
          melds: [],
          opened: Array<boolean>(n).fill(false),
          knownCards: Array.from({ length: n }, () => create(BlagogoCardListSchema)),
          mustMeld: undefined,
          revealedHands: [],
          finalHands: [],
          roundWinner: undefined,
          kantrame: false,
        });
        break;
      }
      case "handDealt":
        v.cardCounts[e.value.seat] = e.value.count;
        if (e.value.seat === me && !e.value.cardsHidden) v.hand = byIndex(e.value.cards);
        break;
      case "bridgeStarted":
        v.bridge = e.value.card ? [e.value.card] : [];
        v.deckCount = e.value.deckCount;
        break;
      case "bridgeTurnedOver":
        v.bridge = [];
        v.deckCount = e.value.count;
        break;
      case "cardDrawn":
        v.cardCounts[e.value.seat] = (v.cardCounts[e.value.seat] ?? 0) + 1;
        v.deckCount -= 1;
        v.phase = BlagogoPhase.PLAY;
        if (e.value.seat === me && e.value.card) v.hand = byIndex([...v.hand, e.value.card]);
        break;
      case "bridgeTaken": {
        const { seat, position, cards } = e.value;
        v.bridge = v.bridge.slice(0, position);
        v.cardCounts[seat] = (v.cardCounts[seat] ?? 0) + cards.length;
        if (seat === me) v.hand = byIndex([...v.hand, ...cards]);
        this.know(v, seat, [...this.known(v, seat), ...cards]);
        v.phase = BlagogoPhase.PLAY;
        if (v.rules?.bridgeTakeMustMeld && cards[0]) v.mustMeld = cards[0];
        break;
      }
      case "meldsLaid": {
        v.melds = [...v.melds, ...e.value.melds];
        v.opened[e.value.seat] = true;
        this.played(v, e.value.seat, e.value.melds.flatMap((m) => m.cards));
        break;
      }
      case "meldExtended":
        if (e.value.meld) this.replaceMeld(v, e.value.meld);
        this.played(v, e.value.seat, e.value.cards);
        break;
      case "jokerSwapped": {
        const { seat, meld, card, joker } = e.value;
        if (meld) this.replaceMeld(v, meld);
        if (card) this.played(v, seat, [card]);
        if (joker) {
          if (seat === me) v.hand = byIndex([...v.hand, joker]);
          this.know(v, seat, [...this.known(v, seat), joker]);
          v.cardCounts[seat] = (v.cardCounts[seat] ?? 0) + 1;
        }
        break;
      }
      case "meldClosed":
        v.melds = v.melds.map((m) => (m.id === e.value.meldId ? { ...m, closed: true } : m));
        break;
      case "discarded":
        if (e.value.card) {
          this.played(v, e.value.seat, [e.value.card]);
          v.bridge = [...v.bridge, e.value.card];
        }
        v.phase = BlagogoPhase.DRAW;
        break;
      case "roundRevealed":
        v.phase = BlagogoPhase.OVER;
        v.toAct = undefined;
        v.mustMeld = undefined;
        v.revealedHands = [...e.value.hands];
        v.finalHands = [...e.value.finalHands];
        break;
      case "roundScored":
        v.scores = [...e.value.totals];
        v.roundWinner = e.value.winner;
        v.kantrame = e.value.kantrame;
        break;
      case "gameOver":
        v.winner = e.value.winner;
        v.standings = [...e.value.standings];
        v.toAct = undefined;
        v.legalActions = [];
        break;
      default:
        break; // deckShuffled, deckExhausted, wentOut: what they mean arrives in the events after them
    }
  }

  private known(v: BlagogoView, seat: number): BlagogoCard[] {
    return v.knownCards[seat]?.cards ?? [];
  }

  private know(v: BlagogoView, seat: number, cards: BlagogoCard[]): void {
    v.knownCards[seat] = create(BlagogoCardListSchema, { cards: byIndex(cards) });
  }

  private replaceMeld(v: BlagogoView, meld: BlagogoMeld): void {
    v.melds = v.melds.map((m) => (m.id === meld.id ? meld : m));
  }

  /** Cards that left a seat's hand for the table. */
  private played(v: BlagogoView, seat: number, gone: BlagogoCard[]): void {
    v.cardCounts[seat] = (v.cardCounts[seat] ?? 0) - gone.length;
    if (seat === this.viewer) v.hand = without(v.hand, gone);
    this.know(v, seat, without(this.known(v, seat), gone));
    if (v.mustMeld !== undefined && gone.some((c) => sameCard(c, v.mustMeld))) v.mustMeld = undefined;
  }
}

