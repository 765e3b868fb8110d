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
import { formatNumber, t, tMaybe, withoutRuleIds } from "./i18n";

/** A variant: its field in the rules message (its words are the catalogues' `variant.<field>`, its enum values'
 * `variant_value.<id>`, a 0 that means "off" `variant_zero.<field>`, the field in snake_case). */
export type Variant =
  | { field: string; rule: string; kind: "bool"; fallback: boolean }
  | { field: string; rule: string; kind: "int"; fallback: number; min: number; max: number; step: number }
  | { field: string; rule: string; kind: "enum"; fallback: number; options: [number, string][] };

export const THOUSAND_VARIANTS: Variant[] = [
  { field: "twoPlayerDeal", rule: "T-5", kind: "enum", fallback: TwoPlayerDeal.NINE_AND_TWO_TALONS_OF_3, options: [
    [TwoPlayerDeal.NINE_AND_TWO_TALONS_OF_3, "nine_and_two_talons_of_3"],
    [TwoPlayerDeal.TEN_AND_TWO_TALONS_OF_2, "ten_and_two_talons_of_2"],
  ] },
  { field: "sitterScores", rule: "T-6", kind: "enum", fallback: SitterScores.NOTHING, options: [
    [SitterScores.NOTHING, "nothing"],
    [SitterScores.TALON_ACES_AND_MARRIAGE, "talon_aces_and_marriage"],
  ] },
  { field: "openingBid", rule: "T-7", kind: "enum", fallback: OpeningBid.FORCED_100, options: [
    [OpeningBid.FORCED_100, "forced_100"],
    [OpeningBid.AT_LEAST_100, "at_least_100"],
  ] },
  { field: "bidStep", rule: "T-8", kind: "int", fallback: 5, min: 5, max: 100, step: 5 },
  { field: "bidCap", rule: "T-9", kind: "enum", fallback: BidCap.MARRIAGES_IN_HAND, options: [
    [BidCap.MARRIAGES_IN_HAND, "marriages_in_hand"],
    [BidCap.NONE, "none"],
  ] },
  { field: "closedTalonOnUncontested100", rule: "T-10", kind: "bool", fallback: true },
  { field: "redealFourNines", rule: "T-11", kind: "bool", fallback: true },
  { field: "weakTalon", rule: "T-12", kind: "enum", fallback: WeakTalon.TWO_NINES_OR_TWO_JACKS_AND_NINE, options: [
    [WeakTalon.OFF, "off"],
    [WeakTalon.TWO_NINES_OR_TWO_JACKS_AND_NINE, "two_nines_or_two_jacks_and_nine"],
    [WeakTalon.BELOW_POINTS, "below_points"],
  ] },
  { field: "weakTalonBelowPoints", rule: "T-12", kind: "int", fallback: 10, min: 0, max: 32, step: 1 },
  { field: "weakHandMaxPoints", rule: "T-13", kind: "int", fallback: 13, min: 0, max: 120, step: 1 },
  { field: "mustBeat", rule: "T-18", kind: "bool", fallback: false },
  { field: "marriageOnFirstTrick", rule: "T-20", kind: "bool", fallback: false },
  { field: "roundDefenders", rule: "T-24", kind: "bool", fallback: true },
  { field: "barrelAt", rule: "T-27", kind: "int", fallback: 880, min: 0, max: 995, step: 5 },
  { field: "barrelBumpedByNewcomer", rule: "T-27", kind: "bool", fallback: true },
  { field: "barrelSimultaneousBothFall", rule: "T-27", kind: "bool", fallback: true },
  { field: "obligatoryGame", rule: "T-28", kind: "bool", fallback: true },
  { field: "samosval", rule: "T-29", kind: "bool", fallback: true },
  { field: "goldenDeals", rule: "T-30", kind: "bool", fallback: false },
  { field: "dark", rule: "T-31", kind: "bool", fallback: false },
  { field: "bank", rule: "T-32", kind: "int", fallback: 0, min: 0, max: 100000, step: 10 },
];

export const BLAGOGO_VARIANTS: Variant[] = [
  { field: "aceInHand", rule: "B-3", kind: "int", fallback: 10, min: 0, max: 100, step: 5 },
  { field: "bridgeTakeMustMeld", rule: "B-9", kind: "bool", fallback: false },
  { field: "openingMinPoints", rule: "B-11", kind: "int", fallback: 30, min: 0, max: 300, step: 5 },
  { field: "openingOneMeld", rule: "B-11", kind: "bool", fallback: false },
  { field: "playOnOwnMelds", rule: "B-12", kind: "bool", fallback: true },
  { field: "maxJokersPerMeld", rule: "B-14", kind: "int", fallback: 0, min: 0, max: 4, step: 1 },
  { field: "completedSetKeeper", rule: "B-15", kind: "enum", fallback: BlagogoCompletedSetKeeper.OWNER, options: [
    [BlagogoCompletedSetKeeper.OWNER, "owner"],
    [BlagogoCompletedSetKeeper.COMPLETER, "completer"],
  ] },
  { field: "layoffScoresFor", rule: "B-17", kind: "enum", fallback: BlagogoLayoffScores.MELD_OWNER, options: [
    [BlagogoLayoffScores.MELD_OWNER, "meld_owner"],
    [BlagogoLayoffScores.CONTRIBUTOR, "contributor"],
  ] },
  { field: "kantrameFirstTurnOnly", rule: "B-19", kind: "bool", fallback: false },
  { field: "target", rule: "B-20", kind: "int", fallback: 1000, min: 50, max: 100000, step: 50 },
  { field: "turnoverLimit", rule: "B-10", kind: "int", fallback: 0, min: 0, max: 100, step: 1 },
];

export interface GameInfo {
  kind: GameKind;
  /** The game's id in the catalogues' glossary (`term.game_<id>`). */
  id: "thousand" | "blagogo";
  players: { min: number; max: number; fallback: number };
  /** The server's bot strategies, the form's default first: the strongest that answers at the table's pace. */
  strategies: string[];
  variants: Variant[];
}

export const GAMES: GameInfo[] = [
  { kind: GameKind.THOUSAND, id: "thousand", players: { min: 2, max: 4, fallback: 3 }, strategies: ["ismcts", "expert", "heuristic", "greedy", "random"], variants: THOUSAND_VARIANTS },
  { kind: GameKind.BLAGOGO, id: "blagogo", players: { min: 2, max: 8, fallback: 4 }, strategies: ["planner", "heuristic", "random"], variants: BLAGOGO_VARIANTS },
];

/** The game's name in the page's language ("Thousand", "Тысяча", "Tysiąc"). */
export function gameName(game: GameInfo): string {
  return t(`term.game_${game.id}`);
}

/** A variant's field as the catalogues name it: camelCase to snake_case. */
function snake(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`).replace(/([a-z])(\d)/g, "$1_$2");
}

/** The variant's name, in words, without its rule ID. */
export function variantLabel(variant: Variant): string {
  return withoutRuleIds(tMaybe(`variant.${snake(variant.field)}`) ?? variant.field);
}

/** An enum value of a variant in words. */
export function optionLabel(id: string): string {
  return tMaybe(`variant_value.${id}`) ?? id;
}

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
  if (variant.kind === "bool") return value ? t("web.yes") : t("web.no");
  if (variant.kind === "enum") {
    const id = variant.options.find(([v]) => v === value)?.[1];
    return id === undefined ? String(value) : optionLabel(id);
  }
  if (value === 0) return tMaybe(`variant_zero.${snake(variant.field)}`) ?? "0";
  return formatNumber(Number(value), { useGrouping: Number(value) >= 10000 });
}

/** The variants a table's rules change from the specification's defaults, in words. */
export function changedRules(kind: GameKind, rules: Rules | undefined): string[] {
  const values = gameRules(rules);
  if (values === undefined) return [];
  return gameInfo(kind).variants.flatMap((variant) => {
    const value = values[variant.field];
    if (value === undefined || value === variant.fallback) return [];
    if (variant.kind === "enum" && value === 0) return [];
    return [t("web.variant_value", { variant: variantLabel(variant), value: valueText(variant, value) })];
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
