// The page's player (PlayerService, docs/protocol.md "Players"): a guest created silently at the first
// visit, an account once signed in with an issuer the server trusts, its games, and the seats this browser
// took anonymously claimed for it. Every Connect call of the page carries its credential (api.ts `bearer`).
import { createClient, type Client } from "@connectrpc/connect";
import { ClaimStatus, PlayerService, type GetSignInOptionsResponse, type Player } from "../gen/thousand/v1/player_service_pb";
import { failure, transport, useCredentials } from "../api";
import { refusalText } from "../ui/refusal";
import type { SeatStore } from "../seats";
import { Identity, isCallback } from "./identity";
import type { Issuer } from "./oidc";
import { PLAYER_WORDS } from "./words";

export type PlayerClient = Client<typeof PlayerService>;

/** A guest's name until the person gives one: four digits, so that two guests at a table differ. */
export function defaultName(random: () => number = Math.random): string {
  return PLAYER_WORDS.defaultName(String(Math.floor(random() * 10000)).padStart(4, "0"));
}

export class Players {
  me: Player | undefined;
  options: GetSignInOptionsResponse | undefined;
  /** Something the player should read (a sign-in that failed, seats claimed), until the next change. */
  notice: string | undefined;
  readonly client: PlayerClient;
  private listeners: (() => void)[] = [];
  private refreshing: Promise<void> | undefined;

  constructor(
    readonly identity: Identity,
    readonly store: SeatStore,
    origin: string,
    private readonly now: () => number = Date.now,
  ) {
    this.client = createClient(PlayerService, transport(origin));
    useCredentials({
      current: () => this.credential(),
      forSeat: async (token) => {
        const record = Object.values(this.store.seats()).find((s) => s.token === token);
        if (record?.player && record.player === this.identity.playerId()) return this.credential();
        return this.identity.credentialForSeat(record, this.now());
      },
      playerId: () => (this.me ? this.identity.playerId() : undefined),
    });
  }

  onChange(listener: () => void): () => void {
    this.listeners.push(listener);
    return () => (this.listeners = this.listeners.filter((l) => l !== listener));
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  /** The page's credential, the account's access token renewed first when it is about to expire. */
  async credential(): Promise<string | undefined> {
    if (this.identity.needsRefresh(this.now())) await this.renew();
    return this.identity.credential(this.now());
  }

  private renew(): Promise<void> {
    this.refreshing ??= (async () => {
      const account = this.identity.account();
      if (!account) return;
      try {
        const { refresh } = await import("./oidc");
        const tokens = await refresh(account, account.refreshToken, this.now());
        this.identity.setAccount({ ...account, refreshToken: tokens.refreshToken });
        this.identity.setAccess(tokens.access);
      } catch (error) {
        // The provider no longer renews it (signed out there, revoked, expired): back to the guest.
        this.identity.setAccount(undefined);
        this.me = undefined;
        this.notice = PLAYER_WORDS.signInFailed(error instanceof Error ? error.message : String(error));
      }
    })().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /** At the page's start: finish a sign-in this tab started, else renew the account or make the guest. */
  async start(location: Location, history: History, session: KeyValueLike): Promise<void> {
    try {
      this.options = await this.client.getSignInOptions({});
    } catch (error) {
      this.notice = PLAYER_WORDS.noPlayer(refusalText(failure(error)));
      this.changed();
      return;
    }
    const url = new URL(location.href);
    if (isCallback(url, session)) {
      history.replaceState(null, "", url.pathname); // the code and state are of no more use
      try {
        const { finishSignIn } = await import("./oidc");
        const { issuer, back, tokens } = await finishSignIn(url, session, this.now());
        // The account first (its player id once GetMe, the first call with its token, says it).
        this.identity.setAccount({ ...issuer, playerId: "", refreshToken: tokens.refreshToken });
        this.identity.setAccess(tokens.access);
        const { player } = await this.client.getMe({});
        if (!player) throw new Error("no player");
        this.identity.setAccount({ ...issuer, playerId: player.playerId, refreshToken: tokens.refreshToken });
        this.me = player;
        await this.claim();
        history.replaceState(null, "", url.pathname + back);
      } catch (error) {
        this.identity.setAccount(undefined);
        this.notice = PLAYER_WORDS.signInFailed(describe(error));
      }
    }
    if (!this.me) await this.who();
    this.named();
    this.changed();
  }

  /** The name the next seats are taken under is the player's own (an account's, or the guest's again). */
  private named(): void {
    if (this.me?.displayName) this.store.setPlayerName(this.me.displayName);
  }

  /** GetMe as the page's player, making the guest when there is none (or the server forgot it). */
  private async who(): Promise<void> {
    if (this.identity.account() || this.identity.guest()) {
      try {
        this.me = (await this.client.getMe({})).player;
        return;
      } catch (error) {
        const f = failure(error);
        if (f.reason !== "PLAYER_TOKEN_INVALID") {
          this.notice = PLAYER_WORDS.noPlayer(refusalText(f));
          return;
        }
        if (this.identity.account()) this.identity.setAccount(undefined);
        else this.identity.setGuest(undefined);
        if (this.identity.guest()) return this.who();
      }
    }
    if (!this.options?.guests) return;
    try {
      const name = this.store.playerName() || defaultName();
      const created = await this.client.createGuest({ displayName: name, locale: navigator.language.slice(0, 35) });
      if (!created.player) return;
      this.identity.setGuest({ playerId: created.player.playerId, token: created.playerToken });
      if (!this.store.playerName()) this.store.setPlayerName(name);
      this.me = created.player;
      await this.claim();
    } catch (error) {
      this.notice = PLAYER_WORDS.noPlayer(refusalText(failure(error)));
    }
  }

  /** Make the seats this browser took anonymously the player's, so their games join the history. */
  async claim(): Promise<number> {
    const me = this.me;
    const seats = Identity.claimable(Object.values(this.store.seats()));
    if (!me || seats.length === 0) return 0;
    const { outcomes } = await this.client.claimSeats({ claims: seats.slice(0, 100).map((s) => ({ tableId: s.tableId, seatToken: s.token })) });
    let claimed = 0;
    outcomes.forEach((outcome, i) => {
      const seat = seats[i];
      if (!seat) return;
      if (outcome.status === ClaimStatus.CLAIMED || outcome.status === ClaimStatus.ALREADY_YOURS) {
        this.store.keep({ ...seat, player: me.playerId });
        if (outcome.status === ClaimStatus.CLAIMED) claimed += 1;
      }
    });
    if (claimed > 0) this.notice = PLAYER_WORDS.claimed(claimed);
    return claimed;
  }

  /** Send the browser to the issuer's sign-in page; it comes back to this page (start() finishes). */
  async signIn(issuer: Issuer, location: Location, session: KeyValueLike): Promise<void> {
    try {
      const redirect = location.origin + location.pathname;
      const { signInUrl } = await import("./oidc");
      location.assign(await signInUrl(issuer, redirect, location.hash || "#/", session));
    } catch (error) {
      this.notice = PLAYER_WORDS.signInFailed(describe(error));
      this.changed();
    }
  }

  /** Forget the account (the guest behind it plays again), here first, whatever the provider answers; then
   * its refresh token revoked at the provider and the browser sent through the provider's end-session
   * endpoint, which brings it back to this page (`location`). */
  async signOut(location?: Location): Promise<void> {
    const account = this.identity.account();
    this.identity.setAccount(undefined);
    this.me = undefined;
    this.notice = undefined;
    if (account && location) {
      try {
        const { signOutAt } = await import("./oidc");
        const end = await signOutAt(account, account.refreshToken, location.origin + location.pathname);
        if (end) {
          location.assign(end);
          return;
        }
      } catch (error) {
        this.notice = PLAYER_WORDS.signOutFailed(describe(error));
      }
    }
    await this.who();
    this.named();
    this.changed();
  }

  /** The player's language, kept in the profile (UpdateMe's locale) so that it follows them elsewhere. */
  async setLocale(lang: string): Promise<void> {
    if (!this.me || this.me.locale === lang) return;
    this.me = (await this.client.updateMe({ locale: lang })).player ?? this.me;
  }

  /** A new display name: kept for the next seats, and the player's own (UpdateMe) when there is one. The
   * page is not redrawn for it (the field shows it already; a redraw under a click would lose the click),
   * only for a refusal. */
  async rename(name: string): Promise<void> {
    this.store.setPlayerName(name);
    if (!this.me || !name || name === this.me.displayName) return;
    try {
      this.me = (await this.client.updateMe({ displayName: name })).player ?? this.me;
    } catch (error) {
      this.notice = refusalText(failure(error));
      this.changed();
    }
  }
}

/** sessionStorage, as oidc.ts reads it. */
type KeyValueLike = Parameters<typeof isCallback>[1];

function describe(error: unknown): string {
  const f = failure(error);
  if (f.reason) return refusalText(f);
  return error instanceof Error ? error.message : String(error);
}
