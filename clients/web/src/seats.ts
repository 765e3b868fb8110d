// What the browser keeps: the seats this person holds (table, seat, token) and, per table, the state of the
// page at the last sequence seen, so that a reload or a closed tab comes back to the same seat and resumes
// the stream right after the last event it had (docs/protocol.md, "From a browser").
export interface SeatRecord {
  tableId: string;
  seat: number;
  token: string;
  name: string;
  /** The seed sent with JoinTable (fair deals), the table's commitment read before it, and JoinTable's
   * Table.sequence: what the deals' checks need (verify.ts). */
  clientSeed?: string;
  commitment?: string;
  joinedAt?: string;
  /** The player who took the seat (their credential names it too), when the page had one: its calls carry
   * that player's credential while the page holds it (players/identity.ts). Absent: an anonymous seat. */
  player?: string;
  /** The table's invite code, when the seat was taken with one (the invite link stays at hand). */
  invite?: string;
  /** What quick play said of the table it seated us at (bots filling seats, rated or not), in English. */
  matchNote?: string;
}

/** The subset of the Web Storage API used here (localStorage in a page; a Map in the Node tests). */
export interface KeyValue {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

const SEATS = "thousand.seats.v1";
const STATE = "thousand.state.v1.";
const NAME = "thousand.name.v1";
const ARMING = "thousand.arming-ms.v1";
/** How long a new Turn's actions stay unarmed, so that a click meant for what was there before does not land
 * on what replaced it; a player who wants it faster (or slower) may set it, 0 to 2000 ms. */
export const DEFAULT_ARMING_MS = 350;
const TRICK = "thousand.trick-ms.v1";
/** How long a finished trick stays on the table before its winner takes it (a player's setting). */
export const DEFAULT_TRICK_MS = 1100;

const SOUNDS = "thousand.sounds.v1";
/** The seats of finished games this browser played (table -> seat), without their tokens: a reload after the
 * end still shows the seat as the viewer's own. The newest few are kept. */
const ENDED = "thousand.ended.v1";
const ENDED_KEPT = 50;
/** The tokens of finished seats taken anonymously (no player: neither a guest nor an account), kept for the
 * rematch alone: table -> {seat, token, until}; the token goes at `until`, the rest with the table's ENDED
 * entry. */
const FINISHED_TOKENS = "thousand.finished-tokens.v1";
/** How long a finished anonymous seat's token is kept for its rematch after the page saw the game end: the
 * server remembers a table's rematch for as long (server/matchmaking/rematch.py, KEEP_SECONDS = 900; it
 * takes the token while it holds the finished table, by default a day: the rematch is the token's one use,
 * and the others are gone long before). A player's seat needs no token: the credential names it. */
export const FINISHED_TOKEN_MS = 900_000;

/** A finished anonymous seat's rematch credential, while kept: the token, or only that it has expired. */
export type FinishedToken = { seat: number; name: string; token: string; until: number } | { seat: number; name: string; expired: true };

export class SeatStore {
  constructor(private readonly storage: KeyValue) {}

  seats(): Record<string, SeatRecord> {
    this.finishedTokens(); // every look at the seats drops the finished seats' tokens gone out of date
    try {
      const raw = this.storage.getItem(SEATS);
      return raw ? (JSON.parse(raw) as Record<string, SeatRecord>) : {};
    } catch {
      return {};
    }
  }

  seat(tableId: string): SeatRecord | undefined {
    return this.seats()[tableId];
  }

  keep(record: SeatRecord): void {
    const all = this.seats();
    all[record.tableId] = record;
    this.storage.setItem(SEATS, JSON.stringify(all));
  }

  forget(tableId: string): void {
    const all = this.seats();
    delete all[tableId];
    this.storage.setItem(SEATS, JSON.stringify(all));
    this.storage.removeItem(STATE + tableId);
    this.keepEnded(tableId, undefined);
    this.dropFinishedToken(tableId);
  }

  /** The game at the table is over: its seat's token and seed are of no more use (a bearer secret) and go,
   * but the page's saved state and which seat was ours stay, so that a reload shows the seat as ours. The one
   * exception: a seat taken anonymously (no player) can ask for its rematch with its token alone, so that
   * token stays for FINISHED_TOKEN_MS from now (once: a later call does not extend it), apart from the live
   * seats. `now`: ms since the epoch (for tests). */
  finished(tableId: string, seat: number, now = Date.now()): void {
    const all = this.seats();
    const record = all[tableId];
    delete all[tableId];
    this.storage.setItem(SEATS, JSON.stringify(all));
    this.keepEnded(tableId, seat);
    if (record && !record.player && record.token) {
      const kept = this.finishedTokens(now);
      kept[tableId] = { seat, name: record.name, token: record.token, until: now + FINISHED_TOKEN_MS };
      this.storage.setItem(FINISHED_TOKENS, JSON.stringify(kept));
    }
  }

  /** The finished anonymous seat's token at this table while it is kept; that it expired once it has (the
   * token itself gone); undefined when none was kept. */
  finishedToken(tableId: string, now = Date.now()): FinishedToken | undefined {
    const kept = this.finishedTokens(now)[tableId];
    if (!kept) return undefined;
    return kept.token ? { seat: kept.seat, name: kept.name, token: kept.token, until: kept.until } : { seat: kept.seat, name: kept.name, expired: true };
  }

  /** The finished seat's token has had its use (the rematch seated this browser at the new table): it goes. */
  dropFinishedToken(tableId: string): void {
    const kept = this.finishedTokens();
    if (!(tableId in kept)) return;
    delete kept[tableId];
    this.storage.setItem(FINISHED_TOKENS, JSON.stringify(kept));
  }

  /** The finished seats' tokens kept, each past its time stripped of its token (written back at once), and
   * those of tables no longer among the ended ones dropped. */
  private finishedTokens(now = Date.now()): Record<string, { seat: number; name: string; token?: string; until: number }> {
    let kept: Record<string, { seat: number; name: string; token?: string; until: number }>;
    try {
      kept = JSON.parse(this.storage.getItem(FINISHED_TOKENS) ?? "{}") as typeof kept;
    } catch {
      kept = {};
    }
    const ended = this.ended();
    let changed = false;
    for (const [tableId, entry] of Object.entries(kept)) {
      if (!(tableId in ended) || typeof entry !== "object" || entry === null) {
        delete kept[tableId];
        changed = true;
      } else if (entry.token !== undefined && !(entry.until > now)) {
        delete entry.token;
        changed = true;
      }
    }
    if (changed) this.storage.setItem(FINISHED_TOKENS, JSON.stringify(kept));
    return kept;
  }

  /** The seat this browser played at a finished table, if it still remembers. */
  endedSeat(tableId: string): number | undefined {
    const seat = this.ended()[tableId];
    return typeof seat === "number" ? seat : undefined;
  }

  private ended(): Record<string, number> {
    try {
      return JSON.parse(this.storage.getItem(ENDED) ?? "{}") as Record<string, number>;
    } catch {
      return {};
    }
  }

  private keepEnded(tableId: string, seat: number | undefined): void {
    const all = this.ended();
    if (seat === undefined && !(tableId in all)) return;
    delete all[tableId];
    if (seat !== undefined) all[tableId] = seat; // the newest last
    const kept = Object.entries(all).slice(-ENDED_KEPT);
    for (const [id] of Object.entries(all).slice(0, -ENDED_KEPT)) this.storage.removeItem(STATE + id);
    this.storage.setItem(ENDED, JSON.stringify(Object.fromEntries(kept)));
  }

  /** The page's state of a table for this viewer ("spectator" or the seat's number), or undefined. */
  state(tableId: string, viewer: string): unknown {
    try {
      const raw = this.storage.getItem(STATE + tableId);
      if (!raw) return undefined;
      const saved = JSON.parse(raw) as { viewer: string; state: unknown };
      return saved.viewer === viewer ? saved.state : undefined;
    } catch {
      return undefined;
    }
  }

  saveState(tableId: string, viewer: string, state: unknown): void {
    try {
      this.storage.setItem(STATE + tableId, JSON.stringify({ viewer, state }));
    } catch {
      // storage full or disabled: a reload then replays the table's history instead
    }
  }

  dropState(tableId: string): void {
    this.storage.removeItem(STATE + tableId);
  }

  trickMs(): number {
    const raw = Number(this.storage.getItem(TRICK) ?? DEFAULT_TRICK_MS);
    return Number.isFinite(raw) ? Math.max(0, Math.min(5000, raw)) : DEFAULT_TRICK_MS;
  }

  /** Whether the table makes sounds: off unless the player turned them on (kept for every table). */
  sounds(): boolean {
    return this.storage.getItem(SOUNDS) === "on";
  }

  setSounds(on: boolean): void {
    this.storage.setItem(SOUNDS, on ? "on" : "off");
  }

  armingMs(): number {
    const raw = Number(this.storage.getItem(ARMING) ?? DEFAULT_ARMING_MS);
    return Number.isFinite(raw) ? Math.max(0, Math.min(2000, raw)) : DEFAULT_ARMING_MS;
  }

  playerName(): string {
    return this.storage.getItem(NAME) ?? "";
  }

  setPlayerName(name: string): void {
    this.storage.setItem(NAME, name);
  }
}

export function memoryStorage(): KeyValue {
  const map = new Map<string, string>();
  return {
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => void map.set(k, v),
    removeItem: (k) => void map.delete(k),
  };
}
