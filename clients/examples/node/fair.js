// A seat's check of fair deals (thousand.fair.v1, docs/protocol.md "Verifiable deals"), for Thousand tables,
// written from the specification alone: SHA-256 and HMAC-SHA256 of node:crypto, nothing of the server's.
//
// Feed it the seat's Thousand events in order (as play.js decodes them: enums as names, uint64 as strings);
// it checks every revealed deal against the commitment sent before any card, this seat's own seed, the
// derivation of the order and the hands dealt, and at the game's end the table's secret against the
// commitment read before the seat was taken. A stream that starts from a snapshot gives it the snapshot's
// deal in progress (Snapshot.deal) first: that deal is then checked as if its start had been seen.
'use strict';

const crypto = require('node:crypto');

const SCHEME = 'thousand.fair.v1';
const SUITS = ['SUIT_SPADES', 'SUIT_CLUBS', 'SUIT_DIAMONDS', 'SUIT_HEARTS'];
const RANKS = ['RANK_NINE', 'RANK_JACK', 'RANK_QUEEN', 'RANK_KING', 'RANK_TEN', 'RANK_ACE'];
const SUIT_LETTER = { SUIT_SPADES: 'S', SUIT_CLUBS: 'C', SUIT_DIAMONDS: 'D', SUIT_HEARTS: 'H' };
const RANK_LABEL = {
  RANK_NINE: '9', RANK_JACK: 'J', RANK_QUEEN: 'Q', RANK_KING: 'K', RANK_TEN: '10', RANK_ACE: 'A',
};

/** The canonical deck a fair shuffle starts from, as card codes: suits S C D H, ranks 9 J Q K 10 A. */
const DECK = SUITS.flatMap((suit) => RANKS.map((rank) => RANK_LABEL[rank] + SUIT_LETTER[suit]));

const code = (card) => RANK_LABEL[card.rank] + SUIT_LETTER[card.suit];
const sha256 = (data) => crypto.createHash('sha256').update(data).digest();
const hmac = (key, text) => crypto.createHmac('sha256', key).update(text, 'utf8').digest();

/** A seat's own seed: 32 bytes from the operating system's generator, base64url (43 characters). */
function newClientSeed() {
  return crypto.randomBytes(32).toString('base64url');
}

/** The deck shuffled from `mix` (32 bytes): Fisher-Yates from the last position down, SHA-256 counter stream. */
function fairShuffle(deck, mix) {
  const order = deck.slice();
  let stream = Buffer.alloc(0);
  let block = 0;
  let at = 0;
  const next = () => {
    if (at + 4 > stream.length) {
      const counter = Buffer.alloc(4);
      counter.writeUInt32BE(block++);
      stream = Buffer.concat([stream.subarray(at), sha256(Buffer.concat([mix, counter]))]);
      at = 0;
    }
    const x = stream.readUInt32BE(at);
    at += 4;
    return x;
  };
  for (let i = order.length - 1; i > 0; i--) {
    const bound = i + 1;
    const limit = 2 ** 32 - (2 ** 32 % bound);
    let x = next();
    while (x >= limit) x = next();
    const j = x % bound;
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

const dealSecret = (tableSecret, number) => hmac(tableSecret, `${SCHEME}|deal|${number}`);
const dealCommitment = (salt, order) =>
  sha256(`thousand.deal.v1|${salt}||${order.join(' ')}`).toString('hex');
const sameCards = (a, b) => a.length === b.length && [...a].sort().join() === [...b].sort().join();

class DealVerifier {
  /**
   * `commitment`: Table.fairness.commitment as read before joining ("" for a seeded table: only each deal's
   * commitment is checked); `seat` and `seed`: this seat and the client_seed it sent; `joinedAt`: the
   * table's sequence in JoinTable's reply (BigInt): this seat's seed is in the deals revealed after it that
   * started after this seat's own SeatTaken event, not in an earlier player's of the seat.
   */
  constructor(commitment, seat, seed, joinedAt) {
    this.commitment = commitment;
    this.seat = seat;
    this.seed = seed;
    this.joinedAt = joinedAt;
    this.taken = -1n; // the sequence number of this seat's own SeatTaken event
    this.deals = new Map(); // number -> {active, commitment, mine}
    this.current = null;
    this.salts = new Map(); // number -> the revealed deal secret (hex), checked at the game's end
    this.verified = [];
    this.problems = [];
    this.secretVerified = false;
  }

  /** A SeatTaken event at `sequence` (BigInt): this seat's own tells from which deal on its seed is in. */
  seatTaken(seat, sequence) {
    if (seat === this.seat && sequence <= this.joinedAt) this.taken = sequence;
  }

  /**
   * A snapshot's deal in progress (Snapshot.deal, on a fair table): its events (the deal's first event, its
   * DeckShuffled, this seat's HandDealt and SeatTaken, with their sequence numbers) taken as if they had come
   * on the stream, so that the deal is checked when it is revealed. Returns the lines to show (none, so far).
   */
  catchUp(deal) {
    const lines = [];
    for (const { sequence, event } of (deal && deal.events) || []) {
      const at = BigInt(sequence);
      if (event.event === 'seat_taken') this.seatTaken(event.seat_taken.seat, at);
      const line = event.event === 'thousand' ? this.see(event.thousand, at) : null;
      if (line) lines.push(line);
    }
    return lines;
  }

  /** Whether a deal started at `startedAt` and revealed at `revealedAt` was dealt with this seat's seed. */
  holdsSeed(startedAt, revealedAt) {
    if (revealedAt <= this.joinedAt) return false; // over before this seat's player joined
    return startedAt > this.joinedAt || (this.taken >= 0n && startedAt > this.taken);
  }

  /**
   * One Thousand event (the ThousandEvent message) at `sequence` (BigInt); returns a line to show when
   * something was checked.
   */
  see(e, sequence) {
    switch (e.event) {
      case 'deal_started':
        this.current = { active: e.deal_started.active, commitment: '', mine: null, startedAt: sequence };
        this.deals.set(e.deal_started.number, this.current);
        return null;
      case 'deck_shuffled': {
        const deal = this.deals.get(e.deck_shuffled.number);
        if (deal) deal.commitment = e.deck_shuffled.commitment;
        return null;
      }
      case 'hand_dealt':
        if (this.current && e.hand_dealt.seat === this.seat && !e.hand_dealt.cards_hidden) {
          this.current.mine = e.hand_dealt.cards.map(code);
        }
        return null;
      case 'deal_revealed':
        return this.revealed(e.deal_revealed, sequence);
      case 'game_over':
        return this.commitment ? this.secret(e.game_over.table_secret) : null;
      default:
        return null;
    }
  }

  revealed(r, sequence) {
    const deal = this.deals.get(r.number);
    this.deals.delete(r.number);
    if (!deal || !deal.commitment) return null; // joined mid-deal: its commitment was never seen
    const mine = this.holdsSeed(deal.startedAt, sequence);
    const trouble = this.problem(r, deal, mine);
    if (trouble) return this.fail(`deal ${r.number}: ${trouble}`);
    this.verified.push(r.number);
    if (!this.commitment) return `deal ${r.number} verified against its commitment (a seeded table)`;
    this.salts.set(r.number, r.salt);
    return (
      `deal ${r.number} verified: committed before it was dealt, and its secret with the ` +
      `${r.client_seeds.length} seats' seeds${mine ? ' (yours included)' : ''} gives the cards dealt`
    );
  }

  problem(r, deal, mine) {
    const order = r.order.map(code);
    const seed = r.deal_seed === undefined || r.deal_seed === null ? '' : String(r.deal_seed);
    const text = `thousand.deal.v1|${r.salt}|${seed}|${order.join(' ')}`;
    if (sha256(text).toString('hex') !== deal.commitment) return 'the revealed order does not match the commitment';
    if (!sameCards(order, DECK)) return 'the revealed order is not the deck, each card once';
    // The order cut into the active seats' hands in turn, then the talons, gives what was revealed.
    const blocks = [...deal.active.map((s) => (r.hands[s] || { cards: [] }).cards), ...r.talons.map((t) => t.cards)];
    let at = 0;
    for (const block of blocks) {
      if (!sameCards(order.slice(at, at + block.length), block.map(code))) {
        return 'the revealed hands are not the order dealt out';
      }
      at += block.length;
    }
    if (deal.mine && !sameCards(deal.mine, (r.hands[this.seat] || { cards: [] }).cards.map(code))) {
      return 'the revealed hands are not the cards you were dealt';
    }
    if (!this.commitment) return null;
    if (seed) return 'a fair deal came with a seed';
    if (mine && r.client_seeds[this.seat] !== this.seed) return 'your seed is not the one the deal was dealt from';
    if (!/^[0-9a-f]{64}$/.test(r.salt)) return "the deal's secret is not 64 hex digits";
    const mix = hmac(Buffer.from(r.salt, 'hex'), [SCHEME, 'thousand', r.number, ...r.client_seeds].join('|'));
    if (fairShuffle(DECK, mix).join(' ') !== order.join(' ')) {
      return "the order is not the one the deal's secret and the seats' seeds give";
    }
    return null;
  }

  secret(hex) {
    if (!/^[0-9a-f]{64}$/.test(hex || '') || sha256(Buffer.from(hex, 'hex')).toString('hex') !== this.commitment) {
      return this.fail("the table's secret does not match the commitment published before the game");
    }
    const secret = Buffer.from(hex, 'hex');
    for (const [number, salt] of this.salts) {
      if (dealSecret(secret, number).toString('hex') !== salt) {
        return this.fail(`deal ${number}'s secret does not derive from the table's secret`);
      }
    }
    this.secretVerified = true;
    return (
      `the table's secret matches its commitment (${SCHEME}): the ${this.salts.size} deals checked were ` +
      'fixed before any seat was taken'
    );
  }

  fail(trouble) {
    this.problems.push(trouble);
    return `FAILED verification: ${trouble}`;
  }
}

module.exports = { DealVerifier, newClientSeed, fairShuffle, DECK };
