// Who this page plays as (docs/protocol.md, "Players"), kept in the browser:
// - a guest, created at the first visit: its player token is the page's own secret, kept in localStorage
//   like the seat tokens (it is the only way back to the guest's games);
// - an account of an OpenID Connect issuer, once signed in: its refresh token in localStorage (the flow
//   allows it for a public client: the provider rotates it at each use), its access token only in
//   sessionStorage (the tab's), renewed before it expires.
// The account, when there is one, is the player; the guest stays behind it, so its seats keep working (their
// calls carry the guest's credential) and signing out comes back to it.
import type { KeyValue, SeatRecord } from "../seats";

export interface Guest {
  playerId: string;
  token: string;
}

export interface Account {
  issuer: string;
  /** The server's audience for that issuer: the client id the page signs in as, and the tokens' `aud`. */
  audience: string;
  playerId: string;
  refreshToken: string;
}

export interface Access {
  /** The bearer credential: the access token (a JWT for the audience) or else the ID token. */
  token: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

const GUEST = "thousand.guest.v1";
const ACCOUNT = "thousand.account.v1";
const ACCESS = "thousand.access.v1";
/** Where a sign-in's round trip keeps its secrets (verifier, state), in the tab's sessionStorage (oidc.ts). */
export const FLOW = "thousand.oidc-flow.v1";

/** Whether this address is an issuer's answer to a sign-in this tab started. */
export function isCallback(url: URL, session: KeyValue): boolean {
  return session.getItem(FLOW) !== null && (url.searchParams.has("code") || url.searchParams.has("error")) && url.searchParams.has("state");
}

/** An access token this close to its end is renewed before a call (a call takes time; clocks differ). */
export const REFRESH_MARGIN_MS = 60_000;

function read<T>(storage: KeyValue, key: string): T | undefined {
  try {
    const raw = storage.getItem(key);
    return raw ? (JSON.parse(raw) as T) : undefined;
  } catch {
    return undefined;
  }
}

function write(storage: KeyValue, key: string, value: unknown): void {
  if (value === undefined) storage.removeItem(key);
  else storage.setItem(key, JSON.stringify(value));
}

export class Identity {
  /** `local`: localStorage (the browser's); `session`: sessionStorage (the tab's). */
  constructor(
    private readonly local: KeyValue,
    private readonly session: KeyValue,
  ) {}

  guest(): Guest | undefined {
    return read<Guest>(this.local, GUEST);
  }

  setGuest(guest: Guest | undefined): void {
    write(this.local, GUEST, guest);
  }

  account(): Account | undefined {
    return read<Account>(this.local, ACCOUNT);
  }

  setAccount(account: Account | undefined): void {
    write(this.local, ACCOUNT, account);
    if (account === undefined) this.setAccess(undefined);
  }

  access(): Access | undefined {
    return read<Access>(this.session, ACCESS);
  }

  setAccess(access: Access | undefined): void {
    write(this.session, ACCESS, access);
  }

  /** The player this page plays as: the account's, else the guest's. */
  playerId(): string | undefined {
    return this.account()?.playerId ?? this.guest()?.playerId;
  }

  /** Whether the account's access token must be renewed before the next call (`now`: epoch ms). */
  needsRefresh(now: number): boolean {
    if (!this.account()) return false;
    const access = this.access();
    return access === undefined || access.expiresAt - now < REFRESH_MARGIN_MS;
  }

  /** The bearer credential of the page's player as things stand (renewing is players.ts's part). */
  credential(now: number): string | undefined {
    if (this.account()) {
      const access = this.access();
      return access && access.expiresAt > now ? access.token : undefined;
    }
    return this.guest()?.token;
  }

  /** The credential to send beside a seat's token: that of the player who took the seat, when the page
   * holds it (the current player's, or the guest's behind an account); none for an anonymous seat or for a
   * player the page no longer holds (the seat token alone then speaks for the seat). */
  credentialForSeat(record: SeatRecord | undefined, now: number): string | undefined {
    const owner = record?.player;
    if (!owner) return undefined;
    if (owner === this.playerId()) return this.credential(now);
    const guest = this.guest();
    return guest && guest.playerId === owner ? guest.token : undefined;
  }

  /** The seats this browser took anonymously (with a token), which an account or guest may claim. */
  static claimable(seats: SeatRecord[]): SeatRecord[] {
    return seats.filter((s) => !s.player && s.token);
  }
}

/** The bearer credential of a token response: its access token when it is a JWT (for the audience, with a
 * `resource`), else its ID token (whose audience is the client id, i.e. the server's audience). */
export function bearerOf(accessToken: string, idToken: string | undefined): string {
  return accessToken.split(".").length === 3 ? accessToken : (idToken ?? accessToken);
}
