// A Thousand table followed from its events: the ThousandView kept current between the server's views.
//
// The server sends a full view only in a snapshot and in the Turn of the seat that must act (on that seat's
// own stream). Between them the client applies each event, as its viewer received it, to the last view: the
// same thing clients/tracker.py does for the terminal client, here on the contract's own messages so that
// the test can compare the tracked view with the server's at every Turn (test/logic/tracker.test.ts).
// Everything but `toAct` and `legalActions`, which only a Turn says, is kept.
import { clone, create } from "@bufbuild/protobuf";
import { CardListSchema, type Card } from "../gen/thousand/v1/cards_pb";
import {
  DealKind,
  Mark,
  Outcome,
  type ThousandEvent,
  type ThousandEvent_DealScored,
  type ThousandEvent_DealStarted,
  type ThousandEvent_SheetMarked,
} from "../gen/thousand/v1/thousand_events_pb";
import { TwoPlayerDeal, type ThousandRules } from "../gen/thousand/v1/thousand_rules_pb";
import {
  DealPhase,
  SeatScoreSchema,
  ThousandView_AuctionEntrySchema,
  ThousandView_DeclaredMarriageSchema,
  ThousandView_ExchangeSchema,
  ThousandView_TakenTrickSchema,
  ThousandView_TrickCardSchema,
  ThousandViewSchema,
  type ThousandView,
  type ThousandView_TrickCard,
} from "../gen/thousand/v1/thousand_views_pb";
import { byIndex, sameCard } from "../cards";

const GOAL = 1000;
const GOLDEN_CONTRACT = 120;
const OBLIGATORY_CONTRACT = 121;
const DARK_BID = 120;
const FALLS = new Set([Mark.BARREL_FALL, Mark.BARREL_BOTH_FALL, Mark.BARREL_BUMPED, Mark.BARREL_TIMEOUT]);
/** Marks the engine writes after counting the barrel deals of a deal (T-27); the others come before. */
const AFTER_BARREL_COUNT = new Set([
  Mark.BARREL_TIMEOUT,
  Mark.SAMOSVAL,
  Mark.BARREL_BOTH_FALL,
  Mark.BARREL_ON,
  Mark.BARREL_BUMPED,
]);
const TALON_TAKEN = new Set([DealPhase.EXCHANGE, DealPhase.CONTRACT, DealPhase.PLAY, DealPhase.OVER]);

/** The view before the first deal. */
export function emptyView(rules: ThousandRules, viewer: number | undefined, firstDealer: number): ThousandView {
  const n = rules.players ?? 3;
  return create(ThousandViewSchema, {
    viewer,
    rules,
    dealer: firstDealer,
    cardCounts: Array<number>(n).fill(0),
    tricksWon: Array<number>(n).fill(0),
    trickPoints: Array<number>(n).fill(0),
    scores: Array.from({ length: n }, (_, seat) => create(SeatScoreSchema, { seat })),
  });
}

function remove(cards: Card[], card: Card): Card[] {
  const at = cards.findIndex((c) => sameCard(c, card));
  return at < 0 ? cards : [...cards.slice(0, at), ...cards.slice(at + 1)];
}

/** The state a Thousand tracker keeps beside the view, plain data (it is saved with the seat). */
export interface ThousandExtras {
  /** The talon the declarer took (0 with three or four players), once taken. */
  talonIndex?: number;
  /** The sheet marks of the deal being settled, applied when its DealScored arrives. */
  marks: { seat: number; mark: Mark; points: number }[];
  /** The cards of the trick just taken, for the display. */
  lastTrick: { seat: number; suit: number; rank: number }[];
}

export class ThousandTracker {
  view: ThousandView | undefined;
  extras: ThousandExtras = { marks: [], lastTrick: [] };

  constructor(readonly viewer: number | undefined) {}

  /** Start again from a view the server sent (a snapshot, or a Turn's view). */
  reset(view: ThousandView): void {
    this.view = clone(ThousandViewSchema, view);
    this.extras.marks = [];
    delete this.extras.talonIndex;
    if (TALON_TAKEN.has(view.phase) && view.talonCounts.length > 0) {
      const empty = view.talonCounts.flatMap((count, i) => (count === 0 ? [i] : []));
      if (view.talonCounts.length === 1) this.extras.talonIndex = 0;
      else if (empty.length === 1) this.extras.talonIndex = empty[0];
    }
  }

  apply(event: ThousandEvent): void {
    const e = event.event;
    if (e.case === "gameStarted") {
      if (e.value.rules) this.view = emptyView(e.value.rules, this.viewer, e.value.firstDealer);
      return;
    }
    const v = this.view;
    if (v === undefined) return; // nothing to follow before the game's first event or a snapshot
    const n = v.cardCounts.length;
    switch (e.case) {
      case "dealStarted":
        this.dealStarted(v, e.value);
        break;
      case "handDealt":
        v.cardCounts[e.value.seat] = e.value.count;
        if (e.value.seat === this.viewer && !e.value.cardsHidden) v.hand = byIndex(e.value.cards);
        break;
      case "darkDeclared":
        v.darkSeat = e.value.seat;
        v.phase = DealPhase.AUCTION;
        break;
      case "darkDeclined":
        v.phase = DealPhase.AUCTION;
        break;
      case "bidMade":
        v.auction.push(create(ThousandView_AuctionEntrySchema, { seat: e.value.seat, bid: e.value.value }));
        v.highBid = e.value.value;
        v.highBidder = e.value.seat;
        break;
      case "passed":
        v.auction.push(create(ThousandView_AuctionEntrySchema, { seat: e.value.seat }));
        break;
      case "auctionWon":
        v.declarer = e.value.seat;
        v.bid = e.value.bid;
        v.doubled = v.doubled || (v.darkSeat === e.value.seat && e.value.bid === DARK_BID);
        if (n === 2) v.phase = DealPhase.TALON_CHOICE;
        break;
      case "talonChosen":
        this.extras.talonIndex = e.value.index;
        break;
      case "talonTaken": {
        const index = this.extras.talonIndex ?? 0;
        this.extras.talonIndex = index;
        const size = v.talonCounts[index] ?? 0;
        v.talonCounts[index] = 0;
        v.cardCounts[e.value.seat] = (v.cardCounts[e.value.seat] ?? 0) + size;
        v.phase = DealPhase.EXCHANGE;
        v.talon = e.value.cardsHidden ? [] : [...e.value.cards];
        if (e.value.seat === this.viewer && !e.value.cardsHidden) v.hand = byIndex([...v.hand, ...e.value.cards]);
        break;
      }
      case "cardGiven":
        this.cardGiven(v, e.value.seat, e.value.toSeat, e.value.card);
        break;
      case "contractNamed":
        v.contract = e.value.value;
        v.phase = DealPhase.PLAY;
        break;
      case "conceded":
        v.contract = e.value.contract;
        break;
      case "marriageDeclared":
        v.marriages.push(create(ThousandView_DeclaredMarriageSchema, { seat: e.value.seat, suit: e.value.suit }));
        v.trump = e.value.suit;
        break;
      case "cardPlayed": {
        const card = e.value.card;
        if (!card) break;
        v.trick.push(create(ThousandView_TrickCardSchema, { seat: e.value.seat, card }));
        v.cardCounts[e.value.seat] = (v.cardCounts[e.value.seat] ?? 0) - 1;
        if (e.value.seat === this.viewer) v.hand = remove(v.hand, card);
        break;
      }
      case "trickTaken":
        this.extras.lastTrick = v.trick.map((t) => ({ seat: t.seat, suit: t.card?.suit ?? 0, rank: t.card?.rank ?? 0 }));
        v.tricks.push(
          create(ThousandView_TakenTrickSchema, { winner: e.value.seat, plays: v.trick, points: e.value.points }),
        );
        v.trick = [];
        v.tricksWon[e.value.seat] = (v.tricksWon[e.value.seat] ?? 0) + 1;
        v.trickPoints[e.value.seat] = (v.trickPoints[e.value.seat] ?? 0) + e.value.points;
        break;
      case "lastTalonTaken": {
        const other = 1 - (this.extras.talonIndex ?? 0);
        v.trickPoints[e.value.seat] = (v.trickPoints[e.value.seat] ?? 0) + e.value.points;
        v.talonCounts[other] = 0;
        break;
      }
      case "dealRevealed":
        if (this.extras.talonIndex !== undefined) v.talon = [...(e.value.talons[this.extras.talonIndex]?.cards ?? [])];
        v.phase = DealPhase.OVER;
        v.revealedHands = e.value.hands.map((h) => create(CardListSchema, { cards: h.cards }));
        v.toAct = undefined;
        break;
      case "sheetMarked":
        this.extras.marks.push(plainMark(e.value));
        break;
      case "dealScored":
        this.scored(v, e.value);
        break;
      case "gameOver":
        v.winner = e.value.winner;
        v.standings = [...e.value.standings];
        v.toAct = undefined;
        v.legalActions = [];
        break;
      default:
        break; // deckShuffled, redealDemanded change nothing; an unknown event is skipped
    }
  }

  /** The last trick taken, as the display shows it. */
  lastTrick(): ThousandView_TrickCard[] {
    return this.extras.lastTrick.map((t) =>
      create(ThousandView_TrickCardSchema, { seat: t.seat, card: { suit: t.suit, rank: t.rank } }),
    );
  }

  private dealStarted(v: ThousandView, e: ThousandEvent_DealStarted): void {
    const rules = v.rules;
    const n = v.cardCounts.length;
    this.extras = { marks: [], lastTrick: [] };
    let talonCounts = [3];
    if (n === 2) talonCounts = rules?.twoPlayerDeal === TwoPlayerDeal.TEN_AND_TWO_TALONS_OF_2 ? [2, 2] : [3, 3];
    const handSize = (24 - talonCounts.reduce((a, b) => a + b, 0)) / e.active.length;
    let phase = rules?.dark ? DealPhase.DARK : DealPhase.AUCTION;
    let bid: number | undefined;
    if (e.kind !== DealKind.NORMAL) {
      phase = n === 2 ? DealPhase.TALON_CHOICE : DealPhase.EXCHANGE;
      bid = e.kind === DealKind.OBLIGATORY ? OBLIGATORY_CONTRACT : GOLDEN_CONTRACT;
    }
    Object.assign(v, {
      dealNumber: e.number,
      dealer: e.dealer,
      kind: e.kind,
      phase,
      active: [...e.active],
      sitter: n === 4 ? e.dealer : undefined,
      hand: [],
      cardCounts: Array.from({ length: n }, (_, s) => (e.active.includes(s) ? handSize : 0)),
      auction: [],
      highBid: undefined,
      highBidder: undefined,
      darkSeat: undefined,
      declarer: e.declarer,
      bid,
      contract: undefined,
      doubled: e.kind === DealKind.GOLDEN,
      talon: [],
      talonCounts,
      exchange: [],
      trick: [],
      tricks: [],
      trump: undefined,
      marriages: [],
      tricksWon: Array<number>(n).fill(0),
      trickPoints: Array<number>(n).fill(0),
      revealedHands: [],
    });
  }

  private cardGiven(v: ThousandView, seat: number, to: number | undefined, card: Card | undefined): void {
    v.cardCounts[seat] = (v.cardCounts[seat] ?? 0) - 1;
    if (to === undefined) {
      const other = 1 - (this.extras.talonIndex ?? 0);
      v.talonCounts[other] = (v.talonCounts[other] ?? 0) + 1;
    } else v.cardCounts[to] = (v.cardCounts[to] ?? 0) + 1;
    if (card !== undefined && seat === this.viewer) v.hand = remove(v.hand, card);
    else if (card !== undefined && to === this.viewer) v.hand = byIndex([...v.hand, card]);
    v.exchange.push(create(ThousandView_ExchangeSchema, { giver: seat, toSeat: to, card }));
    // Two cards end the exchange. A fixed contract (golden, dark, obligatory) is named by the engine at once.
    if (v.exchange.length === 2 && v.kind === DealKind.NORMAL && !v.doubled) v.phase = DealPhase.CONTRACT;
  }

  /** Apply the deal's sheet marks the way the engine writes them (T-25 to T-29). */
  private scored(v: ThousandView, e: ThousandEvent_DealScored): void {
    const sheet = v.scores.map((s) => clone(SeatScoreSchema, s));
    const declarer = sheet[e.declarer];
    const barrel = (v.rules?.barrelAt ?? 880) > 0;
    let winner: number | undefined;
    if (
      barrel &&
      declarer?.onBarrel &&
      e.outcome === Outcome.MADE &&
      (e.kind === DealKind.OBLIGATORY || declarer.score + e.contract >= GOAL)
    )
      winner = e.declarer;
    let counted = false;
    const countBarrelDeals = (): void => {
      for (const seat of v.active) {
        const line = sheet[seat];
        if (line?.onBarrel && seat !== winner) line.barrelDeals += 1;
      }
    };
    const fall = (line: (typeof sheet)[number]): void => {
      line.onBarrel = false;
      line.barrelDeals = 0;
      line.falls += 1;
    };
    for (const m of this.extras.marks) {
      const line = sheet[m.seat];
      if (line === undefined) continue;
      if (AFTER_BARREL_COUNT.has(m.mark) && !counted) {
        countBarrelDeals();
        counted = true;
      }
      if (m.mark === Mark.BOLT) line.bolts += 1;
      else if (m.mark === Mark.BOLT_PENALTY) {
        line.bolts = 0;
        if (line.onBarrel && m.seat !== winner) fall(line);
      } else if (m.mark === Mark.THIRD_FALL_RESET) {
        line.falls = 0;
        line.barrelVisits = 0;
      } else if (m.mark === Mark.OBLIGATORY_FAILED) {
        line.falls = 0;
        line.barrelVisits = 0;
        line.barrelDeals = 0;
        line.onBarrel = false;
      } else if (m.mark === Mark.BARREL_ON) {
        line.onBarrel = true;
        line.barrelDeals = 0;
        line.barrelVisits += 1;
      } else if (FALLS.has(m.mark)) fall(line);
    }
    if (!counted) countBarrelDeals();
    this.extras.marks = [];
    sheet.forEach((line, seat) => (line.score = e.totals[seat] ?? line.score));
    v.scores = sheet;
  }
}

export function plainMark(m: ThousandEvent_SheetMarked): { seat: number; mark: Mark; points: number } {
  return { seat: m.seat, mark: m.mark, points: m.points };
}
