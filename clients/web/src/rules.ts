// Every rule variant of both games, described once: the create form offers them, the lobby and the table
// name the ones a table changed. The defaults are the specification's (thousand_rules.proto,
// blagogo_rules.proto); a third game adds one list here.
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { BlagogoCompletedSetKeeper, BlagogoLayoffScores, BlagogoRulesSchema } from "./gen/thousand/v1/blagogo_rules_pb";
import { GameKind, RulesSchema, type Rules } from "./gen/thousand/v1/table_service_pb";
import {
  BidCap,
  OpeningBid,
  SitterScores,
  ThousandRulesSchema,
  TwoPlayerDeal,
  WeakTalon,
} from "./gen/thousand/v1/thousand_rules_pb";

export type Variant =
  | { field: string; rule: string; label: string; kind: "bool"; fallback: boolean }
  | { field: string; rule: string; label: string; kind: "int"; fallback: number; min: number; max: number; step: number }
  | { field: string; rule: string; label: string; kind: "enum"; fallback: number; options: [number, string][] };

export const THOUSAND_VARIANTS: Variant[] = [
  { field: "twoPlayerDeal", rule: "T-5", label: "Two players deal", kind: "enum", fallback: TwoPlayerDeal.NINE_AND_TWO_TALONS_OF_3, options: [
    [TwoPlayerDeal.NINE_AND_TWO_TALONS_OF_3, "9 cards each, two talons of 3"],
    [TwoPlayerDeal.TEN_AND_TWO_TALONS_OF_2, "Polish: 10 cards each, two talons of 2"],
  ] },
  { field: "sitterScores", rule: "T-6", label: "With four, the sitting dealer scores", kind: "enum", fallback: SitterScores.NOTHING, options: [
    [SitterScores.NOTHING, "nothing"],
    [SitterScores.TALON_ACES_AND_MARRIAGE, "the talon's aces and marriage"],
  ] },
  { field: "openingBid", rule: "T-7", label: "Opening bid", kind: "enum", fallback: OpeningBid.FORCED_100, options: [
    [OpeningBid.FORCED_100, "100, forced"],
    [OpeningBid.AT_LEAST_100, "at least 100, no pass"],
  ] },
  { field: "bidStep", rule: "T-8", label: "Bid step", kind: "int", fallback: 5, min: 5, max: 100, step: 5 },
  { field: "bidCap", rule: "T-9", label: "Bid cap", kind: "enum", fallback: BidCap.MARRIAGES_IN_HAND, options: [
    [BidCap.MARRIAGES_IN_HAND, "120 plus marriages held"],
    [BidCap.NONE, "none"],
  ] },
  { field: "closedTalonOnUncontested100", rule: "T-10", label: "Uncontested 100: talon face down", kind: "bool", fallback: true },
  { field: "redealFourNines", rule: "T-11", label: "Redeal on four nines", kind: "bool", fallback: true },
  { field: "weakTalon", rule: "T-12", label: "Weak talon", kind: "enum", fallback: WeakTalon.TWO_NINES_OR_TWO_JACKS_AND_NINE, options: [
    [WeakTalon.OFF, "never"],
    [WeakTalon.TWO_NINES_OR_TWO_JACKS_AND_NINE, "two nines, or two jacks and a nine"],
    [WeakTalon.BELOW_POINTS, "below a number of points"],
  ] },
  { field: "weakTalonBelowPoints", rule: "T-12", label: "Weak talon below (points)", kind: "int", fallback: 10, min: 0, max: 32, step: 1 },
  { field: "weakHandMaxPoints", rule: "T-13", label: "Weak hand: at most (points, 0 off)", kind: "int", fallback: 13, min: 0, max: 120, step: 1 },
  { field: "mustBeat", rule: "T-18", label: "Must beat the trick", kind: "bool", fallback: false },
  { field: "marriageOnFirstTrick", rule: "T-20", label: "Marriage on the first lead", kind: "bool", fallback: false },
  { field: "roundDefenders", rule: "T-24", label: "Round defenders' points to 5", kind: "bool", fallback: true },
  { field: "barrelAt", rule: "T-27", label: "Barrel at (0: no barrel)", kind: "int", fallback: 880, min: 0, max: 995, step: 5 },
  { field: "barrelBumpedByNewcomer", rule: "T-27", label: "Newcomer bumps the barrel", kind: "bool", fallback: true },
  { field: "barrelSimultaneousBothFall", rule: "T-27", label: "Two on the barrel both fall", kind: "bool", fallback: true },
  { field: "obligatoryGame", rule: "T-28", label: "Obligatory game on the third barrel", kind: "bool", fallback: true },
  { field: "samosval", rule: "T-29", label: "555 falls to 0", kind: "bool", fallback: true },
  { field: "goldenDeals", rule: "T-30", label: "Golden deals", kind: "bool", fallback: false },
  { field: "dark", rule: "T-31", label: "Dark 120", kind: "bool", fallback: false },
  { field: "bank", rule: "T-32", label: "Bank (stake)", kind: "int", fallback: 0, min: 0, max: 100000, step: 10 },
];

export const BLAGOGO_VARIANTS: Variant[] = [
  { field: "aceInHand", rule: "B-3", label: "An ace left in hand costs", kind: "int", fallback: 10, min: 0, max: 100, step: 5 },
  { field: "bridgeTakeMustMeld", rule: "B-9", label: "A bridge take must be melded", kind: "bool", fallback: false },
  { field: "openingMinPoints", rule: "B-11", label: "Opening at least (points)", kind: "int", fallback: 30, min: 0, max: 300, step: 5 },
  { field: "openingOneMeld", rule: "B-11", label: "The opening minimum in one meld", kind: "bool", fallback: false },
  { field: "playOnOwnMelds", rule: "B-12", label: "Add to and swap in your own melds", kind: "bool", fallback: true },
  { field: "maxJokersPerMeld", rule: "B-14", label: "Jokers per meld at most (0: no limit)", kind: "int", fallback: 0, min: 0, max: 4, step: 1 },
  { field: "completedSetKeeper", rule: "B-15", label: "A set completed by another player goes to", kind: "enum", fallback: BlagogoCompletedSetKeeper.OWNER, options: [
    [BlagogoCompletedSetKeeper.OWNER, "its owner"],
    [BlagogoCompletedSetKeeper.COMPLETER, "the player who completes it"],
  ] },
  { field: "layoffScoresFor", rule: "B-17", label: "Added cards score for", kind: "enum", fallback: BlagogoLayoffScores.MELD_OWNER, options: [
    [BlagogoLayoffScores.MELD_OWNER, "the meld's owner"],
    [BlagogoLayoffScores.CONTRIBUTOR, "who added them"],
  ] },
  { field: "kantrameFirstTurnOnly", rule: "B-19", label: "Kantrame only on the first turn", kind: "bool", fallback: false },
  { field: "target", rule: "B-20", label: "Play to (points)", kind: "int", fallback: 1000, min: 50, max: 100000, step: 50 },
  { field: "turnoverLimit", rule: "B-10", label: "Bridge turnovers per round (0: no limit)", kind: "int", fallback: 0, min: 0, max: 100, step: 1 },
];

export interface GameInfo {
  kind: GameKind;
  name: string;
  players: { min: number; max: number; fallback: number };
  /** The server's bot strategies, the form's default first: the strongest that answers at the table's pace. */
  strategies: string[];
  variants: Variant[];
}

export const GAMES: GameInfo[] = [
  { kind: GameKind.THOUSAND, name: "Thousand", players: { min: 2, max: 4, fallback: 3 }, strategies: ["heuristic", "ismcts", "greedy", "random"], variants: THOUSAND_VARIANTS },
  { kind: GameKind.BLAGOGO, name: "1000 Blagogo", players: { min: 2, max: 8, fallback: 4 }, strategies: ["heuristic", "random"], variants: BLAGOGO_VARIANTS },
];

export function gameInfo(kind: GameKind): GameInfo {
  return GAMES.find((g) => g.kind === kind) ?? GAMES[0]!;
}

type Values = Record<string, number | boolean | undefined>;

function gameRules(rules: Rules | undefined): Values | undefined {
  const game = rules?.game;
  return game?.case === undefined ? undefined : (game.value as unknown as Values);
}

/** The rules' players. */
export function playersOf(rules: Rules | undefined, fallback: number): number {
  return (gameRules(rules)?.["players"] as number | undefined) ?? fallback;
}

export function valueText(variant: Variant, value: number | boolean): string {
  if (variant.kind === "bool") return value ? "yes" : "no";
  if (variant.kind === "enum") return variant.options.find(([v]) => v === value)?.[1] ?? String(value);
  return String(value);
}

/** The variants a table's rules change from the specification's defaults, in words. */
export function changedRules(kind: GameKind, rules: Rules | undefined): string[] {
  const values = gameRules(rules);
  if (values === undefined) return [];
  return gameInfo(kind).variants.flatMap((variant) => {
    const value = values[variant.field];
    if (value === undefined || value === variant.fallback) return [];
    if (variant.kind === "enum" && value === 0) return [];
    return [`${variant.label}: ${valueText(variant, value)}`];
  });
}

/** CreateTable's rules from the form's values (a variant at its default is left unset). */
export function rulesFrom(kind: GameKind, players: number, values: Values): Rules {
  const set: Values = { players };
  for (const variant of gameInfo(kind).variants) {
    const value = values[variant.field];
    if (value !== undefined && value !== variant.fallback) set[variant.field] = value;
  }
  if (kind === GameKind.BLAGOGO)
    return create(RulesSchema, { game: { case: "blagogo", value: create(BlagogoRulesSchema, set as MessageInitShape<typeof BlagogoRulesSchema>) } });
  return create(RulesSchema, { game: { case: "thousand", value: create(ThousandRulesSchema, set as MessageInitShape<typeof ThousandRulesSchema>) } });
}
