// The form that creates a table: the game, the players, each seat open or a bot with its strategy, every
// rule variant of the game, a turn clock and an optional seed. The creator then takes the first open seat.
import { GameKind, SeatKind, TimeoutPolicy, type SeatConfig } from "../gen/thousand/v1/table_service_pb";
import { failure, randomToken } from "../api";
import { h, render } from "../dom";
import { GAMES, gameInfo, gameName, optionLabel, rulesFrom, variantLabel, type Variant } from "../rules";
import { join, type LobbyOptions } from "./lobby";
import { refusalText } from "./refusal";
import { capital, t } from "../i18n";
import { newInviteCode } from "../players/invite";
import { PLAYER_WORDS } from "../players/words";

/** The timeout policies the form offers, by their ids in `web.create.policy`. */
const POLICIES: [TimeoutPolicy, string][] = [
  [TimeoutPolicy.BOT_PLAYS_TURN, "bot_plays_turn"],
  [TimeoutPolicy.BOT_PLAYS, "bot_plays"],
  [TimeoutPolicy.FORFEIT, "forfeit"],
];

interface FormState {
  game: GameKind;
  players: number;
  seats: string[]; // "open" or a strategy
  values: Record<string, number | boolean>;
  perMove: number;
  bank: number;
  policy: TimeoutPolicy;
  seed: string;
  /** A private table: unlisted, joined with an invite code (the link the creator shares). */
  private: boolean;
  /** Per seat, the player id it is held for ("" for none): a private table's reservations. */
  held: string[];
}

function fresh(game: GameKind): FormState {
  const info = gameInfo(game);
  const players = info.players.fallback;
  return {
    game,
    players,
    seats: Array.from({ length: players }, (_, i) => (i === 0 ? "open" : info.strategies[0]!)),
    values: Object.fromEntries(info.variants.map((v) => [v.field, v.fallback])),
    perMove: 0,
    bank: 0,
    policy: TimeoutPolicy.BOT_PLAYS_TURN,
    seed: "",
    private: false,
    held: [],
  };
}

function variantInput(variant: Variant, state: FormState, redraw: () => void): HTMLElement {
  const id = `rule-${variant.field}`;
  const value = state.values[variant.field] ?? variant.fallback;
  const set = (v: number | boolean): void => {
    state.values[variant.field] = v;
  };
  let input: HTMLElement;
  if (variant.kind === "bool")
    input = h("input", { type: "checkbox", id, checked: value === true, onchange: (e: Event) => set((e.target as HTMLInputElement).checked) });
  else if (variant.kind === "enum")
    input = h(
      "select",
      { id, onchange: (e: Event) => { set(Number((e.target as HTMLSelectElement).value)); redraw(); } },
      variant.options.map(([v, id]) => h("option", { value: v, selected: v === value }, optionLabel(id))),
    );
  else
    input = h("input", {
      type: "number",
      id,
      min: variant.min,
      max: variant.max,
      step: variant.step,
      value: Number(value),
      oninput: (e: Event) => set(Number((e.target as HTMLInputElement).value)),
    });
  return h("div", { class: `field ${variant.kind}` }, h("label", { for: id }, `${variantLabel(variant)} `), input);
}

/** The create form, as one element kept across the lobby's refreshes (its inputs keep their state). */
export function createForm(opts: LobbyOptions, report: (error: string | undefined) => void): HTMLElement {
  let state = fresh(GameKind.THOUSAND);
  let busy = false;
  const section = h("section", { class: "create", "aria-label": t("web.create.title") });

  async function submit(): Promise<void> {
    busy = true;
    draw();
    const seats: Partial<SeatConfig>[] = state.seats.map((s) =>
      s === "open" ? { kind: SeatKind.OPEN } : { kind: SeatKind.BOT, strategy: s },
    );
    const timeControl = state.perMove > 0 ? { perMove: { seconds: BigInt(state.perMove) }, bank: { seconds: BigInt(state.bank) }, onTimeout: state.policy } : undefined;
    const requestId = randomToken(16);
    // Drawn once per submission, so that a retried CreateTable (its request id) sends the same code.
    const invite = state.private ? newInviteCode() : undefined;
    const reservations = state.private
      ? state.held.flatMap((player, seat) => (player.trim() && state.seats[seat] === "open" ? [{ seat, playerId: player.trim() }] : []))
      : [];
    const seed = state.seed.trim() ? BigInt(state.seed.trim()) : undefined;
    try {
      const { table } = await opts.anyNode.call((c) =>
        c.createTable({
          game: state.game,
          rules: rulesFrom(state.game, state.players, state.values),
          seats: seats as SeatConfig[],
          seed,
          // A seed deals known cards: a table with a seat for a person then says it is for practice.
          practice: seed !== undefined && state.seats.includes("open"),
          timeControl,
          requestId,
          unlisted: state.private,
          inviteCode: invite ?? "",
          reservations,
        }),
      );
      report(undefined);
      if (!table) return;
      const open = state.seats.findIndex((s, i) => s === "open" && !(state.private && state.held[i]?.trim()));
      if (open >= 0) await join(opts, table.tableId, open, invite);
      else opts.go(`#/table/${table.tableId}`);
    } catch (error) {
      report(t("web.create.failed", { why: refusalText(failure(error)) }));
    } finally {
      busy = false;
      draw();
    }
  }

  function draw(): void {
    const info = gameInfo(state.game);
    const seatRows = state.seats.map((s, i) =>
      h(
        "div",
        { class: "field seat-row" },
        h("label", { for: `seat-${i}` }, `${capital(t("seat.numbered", { seat: i + 1 }))} `),
        h(
          "select",
          { id: `seat-${i}`, "data-testid": `seat-${i}`, onchange: (e: Event) => (state.seats[i] = (e.target as HTMLSelectElement).value) },
          h("option", { value: "open", selected: s === "open" }, t("web.create.person")),
          info.strategies.map((st) => h("option", { value: st, selected: s === st }, t("web.create.strategy", { strategy: st }))),
        ),
        state.private && i > 0
          ? h(
              "span",
              { class: "held" },
              h("label", { for: `held-${i}` }, PLAYER_WORDS.heldFor(i + 1)),
              h("input", { id: `held-${i}`, type: "text", "data-testid": `held-${i}`, value: state.held[i] ?? "", oninput: (e: Event) => (state.held[i] = (e.target as HTMLInputElement).value) }),
            )
          : null,
      ),
    );
    render(
      section,
      h("h2", {}, t("web.create.title")),
      h(
        "form",
        {
          onsubmit: (e: Event) => {
            e.preventDefault();
            void submit();
          },
        },
        h(
          "div",
          { class: "row" },
          h(
            "div",
            { class: "field" },
            h("label", { for: "new-game" }, `${t("web.lobby.game")} `),
            h(
              "select",
              { id: "new-game", "data-testid": "new-game", onchange: (e: Event) => { state = fresh(Number((e.target as HTMLSelectElement).value) as GameKind); draw(); } },
              GAMES.map((g) => h("option", { value: g.kind, selected: g.kind === state.game }, gameName(g))),
            ),
          ),
          h(
            "div",
            { class: "field" },
            h("label", { for: "new-players" }, `${t("variant.players")} `),
            h(
              "select",
              {
                id: "new-players",
                "data-testid": "new-players",
                onchange: (e: Event) => {
                  const n = Number((e.target as HTMLSelectElement).value);
                  state.players = n;
                  state.seats = Array.from({ length: n }, (_, i) => state.seats[i] ?? info.strategies[0]!);
                  draw();
                },
              },
              Array.from({ length: info.players.max - info.players.min + 1 }, (_, i) => info.players.min + i).map((n) =>
                h("option", { value: n, selected: n === state.players }, String(n)),
              ),
            ),
          ),
        ),
        h(
          "div",
          { class: "field" },
          h(
            "label",
            {},
            h("input", {
              type: "checkbox",
              "data-testid": "new-private",
              checked: state.private,
              onchange: (e: Event) => {
                state.private = (e.target as HTMLInputElement).checked;
                draw();
              },
            }),
            ` ${PLAYER_WORDS.privateTable}`,
          ),
        ),
        h("fieldset", {}, h("legend", {}, t("web.lobby.seats")), seatRows),
        h("details", { "data-testid": "rules" }, h("summary", {}, t("web.create.rules", { n: info.variants.length })), h("div", { class: "variants" }, info.variants.map((v) => variantInput(v, state, draw)))),
        h(
          "details",
          { "data-testid": "clock-and-seed" },
          h("summary", {}, t("web.create.clock_and_seed")),
          h(
            "div",
            { class: "variants" },
            h("div", { class: "field" }, h("label", { for: "per-move" }, `${t("web.create.per_move")} `), h("input", { id: "per-move", type: "number", min: 0, max: 86400, value: state.perMove, oninput: (e: Event) => (state.perMove = Number((e.target as HTMLInputElement).value)) })),
            h("div", { class: "field" }, h("label", { for: "bank" }, `${t("web.create.bank")} `), h("input", { id: "bank", type: "number", min: 0, max: 86400, value: state.bank, oninput: (e: Event) => (state.bank = Number((e.target as HTMLInputElement).value)) })),
            h(
              "div",
              { class: "field" },
              h("label", { for: "policy" }, `${t("web.create.policy_label")} `),
              h(
                "select",
                { id: "policy", onchange: (e: Event) => (state.policy = Number((e.target as HTMLSelectElement).value) as TimeoutPolicy) },
                POLICIES.map(([policy, id]) => h("option", { value: policy, selected: state.policy === policy }, t("web.create.policy", { policy: id }))),
              ),
            ),
            h("div", { class: "field" }, h("label", { for: "seed" }, `${t("web.create.seed")} `), h("input", { id: "seed", "data-testid": "seed", type: "text", inputmode: "numeric", pattern: "[0-9]*", value: state.seed, oninput: (e: Event) => (state.seed = (e.target as HTMLInputElement).value) })),
          ),
        ),
        h("button", { type: "submit", class: "primary", "data-testid": "create", disabled: busy }, busy ? t("web.create.creating") : t("web.create.create")),
      ),
    );
  }
  draw();
  return section;
}
