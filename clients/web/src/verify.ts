// Each deal's check, for both games (docs/protocol.md, "Verifiable deals"). A fair deal (thousand.fair.v1):
// (1) the revealed order matches the commitment sent before any card was seen, (2) the seat's own seed is
// among those the deal was dealt from, (3) the deal's secret and the seats' seeds shuffle the canonical deck
// into that order, (4) the seat's hand is the order's cut for it; at the game's end, (5) the table's secret
// matches the commitment read before joining and (6) every deal's secret came from it. A seeded (practice)
// deal: its commitment "thousand.deal.v1|salt|deal_seed|order" (a seeded Blagogo round sends none).
import { commitmentOf, cuts, dealSecret, mix, shuffled, type GameName } from "./fair";
import { fromHex, hex, sha256Hex } from "./sha256";
import { t } from "./i18n";

/** One deal's check, as the table shows it. */
/** What failed a check: the revealed order and the commitment, the seat's own seed, a secret that is not hex,
 * the seeds and the order, the seat's own hand, and at the game's end the table's secret. */
type Problem =
  | "order"
  | "your_seed"
  | "secret_not_hex"
  | "seeds_order"
  | "your_hand"
  | "table_secret_not_hex"
  | "table_secret_commitment"
  | "deal_secret";

function problemWords(problem: Problem, unit = "thousand", deal = 0): string {
  return t("web.check.problem", { problem, unit, deal });
}

export interface DealCheck {
  number: number;
  ok: boolean;
  text: string;
}

export interface Seat {
  seat?: number;
  /** The seed this browser sent with JoinTable. */
  clientSeed?: string;
  /** The table's commitment as read before joining (a spectator: as read when opening the page). */
  commitment?: string;
  /** JoinTable's Table.sequence; and the sequence of our seat's SeatTaken, the last up to it: the deals
   * started after that one were dealt with our seed. */
  joinedAt?: string;
  takenAt?: string;
}

export interface Reveal {
  number: number;
  order: string[];
  salt: string;
  dealSeed?: bigint;
  clientSeeds: readonly string[];
}

interface Facts {
  startedAt: string;
  dealing: number[];
  sizes: number[];
  commitment?: string;
  mine?: string[];
}

interface Saved {
  pending: Record<number, Facts>;
  checks: DealCheck[];
  salts: Record<number, string>;
  takenAt?: string;
}

export class DealVerifier {
  private pending: Record<number, Facts> = {};
  checks: DealCheck[] = [];
  private salts: Record<number, string> = {};
  private current = 0;

  /** `format` is the deal commitment's ("thousand.deal.v1", "blagogo.round.v1"), `deck` the canonical codes. */
  constructor(
    private readonly game: GameName,
    private readonly format: string,
    private readonly deck: readonly string[],
    public seat: Seat = {},
  ) {}

  started(number: number, sequence: bigint, dealing: number[], sizes: number[]): void {
    this.current = number;
    this.pending[number] = { startedAt: sequence.toString(), dealing, sizes };
  }

  shuffled(number: number, commitment: string): void {
    const facts = this.pending[number];
    if (facts && commitment) facts.commitment = commitment.toLowerCase();
  }

  /** The viewer's own hand as dealt (its codes). */
  dealt(seat: number, codes: string[]): void {
    const facts = this.pending[this.current];
    if (facts && seat === this.seat.seat && codes.length) facts.mine = codes;
  }

  revealed(r: Reveal): DealCheck | undefined {
    const facts = this.pending[r.number];
    delete this.pending[r.number];
    if (facts?.commitment === undefined) return undefined; // joined mid-deal, or a seeded round: nothing committed
    const problem = r.dealSeed === undefined ? this.fairProblem(r, facts) : this.seededProblem(r, facts);
    this.salts[r.number] = r.salt;
    const check: DealCheck = problem
      ? { number: r.number, ok: false, text: t("web.check.deal_failed", { unit: this.game, number: r.number, problem: problemWords(problem) }) }
      : { number: r.number, ok: true, text: this.verified(r, facts) };
    this.checks.push(check);
    return check;
  }

  /** Steps 5 and 6, once GameOver discloses the table's secret. */
  gameOver(tableSecret: string): DealCheck | undefined {
    if (!tableSecret) return undefined;
    const secret = fromHex(tableSecret);
    const committed = this.seat.commitment;
    let problem: Problem | undefined;
    let wrongDeal = 0;
    if (secret === undefined) problem = "table_secret_not_hex";
    else if (committed && commitmentOf(secret) !== committed.toLowerCase())
      problem = "table_secret_commitment";
    else {
      const wrong = Object.entries(this.salts).find(([n, salt]) => hex(dealSecret(secret, Number(n))) !== salt.toLowerCase());
      if (wrong) {
        problem = "deal_secret";
        wrongDeal = Number(wrong[0]);
      }
    }
    const count = Object.keys(this.salts).length;
    const check: DealCheck = problem
      ? { number: 0, ok: false, text: t("web.check.game_failed", { problem: problemWords(problem, this.game, wrongDeal) }) }
      : {
          number: 0,
          ok: true,
          text: t("web.check.game_ok", { read: committed ? "yes" : "no", count, unit: this.game }),
        };
    this.checks.push(check);
    return check;
  }

  private seededProblem(r: Reveal, facts: Facts): Problem | undefined {
    const text = `${this.format}|${r.salt}|${r.dealSeed ?? ""}|${r.order.join(" ")}`;
    return sha256Hex(text) === facts.commitment ? undefined : "order";
  }

  private fairProblem(r: Reveal, facts: Facts): Problem | undefined {
    if (sha256Hex(`${this.format}|${r.salt}||${r.order.join(" ")}`) !== facts.commitment)
      return "order";
    const mine = this.seat.seat;
    if (this.ours(facts) && r.clientSeeds[mine!] !== this.seat.clientSeed) return "your_seed";
    const secret = fromHex(r.salt);
    if (secret === undefined) return "secret_not_hex";
    const order = shuffled(this.deck, mix(secret, this.game, r.number, r.clientSeeds));
    if (order.join(" ") !== r.order.join(" ")) return "seeds_order";
    if (facts.mine && mine !== undefined) {
      const cut = cuts(facts.dealing, facts.sizes).find(([seat]) => seat === mine);
      const dealt = cut ? r.order.slice(cut[1], cut[1] + cut[2]) : [];
      if ([...dealt].sort().join(" ") !== [...facts.mine].sort().join(" ")) return "your_hand";
    }
    return undefined;
  }

  private verified(r: Reveal, facts: Facts): string {
    if (r.dealSeed !== undefined) return t("web.check.seeded_ok", { unit: this.game, number: r.number });
    const seeds = r.clientSeeds.filter((s) => s !== "").length;
    return t("web.check.fair_ok", { unit: this.game, number: r.number, seeds, yours: this.ours(facts) ? "yes" : "no" });
  }

  /** Whether the deal was dealt while this browser held the seat, with its seed. */
  private ours(facts: Facts): boolean {
    const since = this.seat.takenAt ?? this.seat.joinedAt;
    return this.seat.seat !== undefined && !!this.seat.clientSeed && since !== undefined && BigInt(facts.startedAt) > BigInt(since);
  }

  /** Our seat's SeatTaken at `sequence`: the last one up to JoinTable's reply is where our seed began. */
  seatTaken(seat: number, sequence: bigint): void {
    const joinedAt = this.seat.joinedAt;
    if (seat === this.seat.seat && joinedAt !== undefined && sequence <= BigInt(joinedAt)) this.seat.takenAt = sequence.toString();
  }

  save(): Saved {
    return { pending: this.pending, checks: this.checks, salts: this.salts, takenAt: this.seat.takenAt };
  }

  restore(saved: Saved | undefined): void {
    if (!saved) return;
    this.pending = saved.pending ?? {};
    this.checks = saved.checks ?? [];
    this.salts = saved.salts ?? {};
    if (saved.takenAt !== undefined) this.seat.takenAt = saved.takenAt;
    this.current = Math.max(0, ...Object.keys(this.pending).map(Number));
  }
}
