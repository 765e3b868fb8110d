// A refusal in words: what the reason means for the player and the server's own explanation, never a code or
// a rule ID. Every phrase is in the tables below (a message catalogue replaces them for other languages).
import { Code } from "@connectrpc/connect";
import type { Failure } from "../api";

const REASONS: Record<string, string> = {
  TABLE_NOT_FOUND: "there is no such table",
  TABLE_FULL: "every seat is taken",
  SEAT_TAKEN: "that seat is taken",
  SEAT_NOT_OPEN: "that seat is a bot's",
  SEAT_TOKEN_INVALID: "this browser's seat is no longer valid",
  SPECTATOR_CANNOT_ACT: "a spectator cannot act",
  NOT_YOUR_TURN: "it is not your turn",
  ILLEGAL_ACTION: "the rules do not allow that",
  STALE_SEQUENCE: "the table moved on before your action arrived",
  GAME_NOT_STARTED: "the game has not started",
  GAME_OVER: "the game is over",
  INVALID_ARGUMENT: "the request was malformed",
  INVALID_RULES: "those rules cannot be played together",
  UNKNOWN_STRATEGY: "no bot plays that strategy",
  REQUEST_ID_REUSED: "the request was sent twice with different content",
  TOO_MANY_TABLES: "the server holds as many tables as it can",
  RATE_LIMITED: "too many requests; wait a moment",
  SEAT_FORFEITED: "your seat forfeited on time",
  STORE_UNAVAILABLE: "the server could not store it; try again",
  TABLE_NOT_FINISHED: "the game is still being played",
  INVITE_INVALID: "this table is joined by its invite link only",
  SEAT_RESERVED: "that seat is held for another player",
  PLAYER_TOKEN_INVALID: "you are no longer signed in; sign in again",
  PLAYER_BANNED: "an operator has banned this player",
  IDENTITY_UNAVAILABLE: "signing in is not possible right now; try again",
  PLAYER_NOT_FOUND: "no player has that id",
  GUESTS_DISABLED: "this server asks you to sign in",
};

/** The engine's rule reasons (metadata `rule`), for people. */
const RULES: Record<string, string> = {
  MUST_FOLLOW_SUIT: "you must follow suit",
  MUST_TRUMP: "you must play a trump",
  MUST_BEAT: "you must beat the trick",
  BID_TOO_LOW: "the bid is too low",
  BID_ABOVE_CAP: "the bid is above your cap",
  BID_NOT_MULTIPLE_OF_STEP: "bids rise by the bid step",
  BID_NEEDS_MARRIAGE: "a bid above 120 needs a marriage",
  MUST_BID: "you must bid",
  CONTRACT_TOO_LOW: "the contract is below your bid",
  CONTRACT_ABOVE_CAP: "the contract is above your cap",
  MARRIAGE_NOT_ALLOWED_ON_FIRST_TRICK: "no marriage on the first lead",
  MARRIAGE_NOT_HELD: "you do not hold that marriage",
  MARRIAGE_NOT_ON_LEAD: "a marriage is declared only when leading",
  NOT_OPENED: "you must open first",
  OPENING_TOO_LOW: "the opening melds are worth too little",
  DOUBLES_IN_SET: "a set cannot hold two cards of one suit",
  RUN_NOT_CONSECUTIVE: "a run's ranks must follow each other",
  RUN_REPEATS_RANK: "a run holds each rank once",
  NOT_A_MELD: "those cards are neither a set nor a run",
  MELD_TOO_SHORT: "a meld needs at least three cards",
  MELD_NEEDS_NATURAL: "a meld needs a natural card",
  SET_TOO_LONG: "a set has at most four cards",
  MELD_CLOSED: "that set is closed",
  JOKER_MEANING: "the joker cannot stand for that there",
  LAST_CARD_MUST_BE_DISCARDED: "your last card must be discarded",
  MUST_MELD_BRIDGE_CARD: "meld the card you took from the bridge first",
  BRIDGE_CARD_NOT_MELDABLE: "the deepest card taken could not be melded",
  NO_JOKER_FOR_CARD: "no joker of that meld stands for this card",
  SET_NEEDS_THIRD_SUIT: "that joker is freed only by the fourth suit",
};

/** A refusal for a person: what it means, then the server's explanation with the rule references and
 * identifiers taken out (they belong in the rules help, not in a message to a player). */
export function refusalText(f: Failure): string {
  const rule = f.metadata["rule"];
  const reason = rule && RULES[rule] ? RULES[rule] : (REASONS[f.reason] ?? (f.reason ? words(f.reason) : transport(f.code)));
  const message = plain(f.message);
  return message ? `${reason}: ${message}` : reason;
}

/** The server's message without rule IDs ("(B-11)"), setting names ("(opening_one_meld)") or codes. */
export function plain(message: string): string {
  return message
    .replace(/\s*\((?:[TB]-\d+[a-z]?|[a-z]+(?:_[a-z]+)+)(?:[,;]\s*(?:[TB]-\d+[a-z]?|[a-z]+(?:_[a-z]+)+))*\)/g, "")
    .replace(/\b(?:rule\s+)?[TB]-\d+[a-z]?\b/g, "")
    .replace(/\b[A-Z]+(?:_[A-Z]+)+\b/g, (code) => words(code))
    .replace(/\s+([;,.])/g, "$1")
    .trim();
}

function words(code: string): string {
  return code.toLowerCase().replace(/_/g, " ");
}

function transport(code: Code): string {
  if (code === Code.Unavailable) return "the server cannot be reached";
  if (code === Code.DeadlineExceeded) return "the server did not answer in time";
  return "the server could not do it; try again";
}
