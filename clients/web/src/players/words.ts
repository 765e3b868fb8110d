// Every word the players' screens say (the player bar, "My games", invites, held seats, signing in), in one
// table: a message catalogue replaces it for other languages, as the other screens' TEXT tables.
import { GameResult } from "../gen/thousand/v1/player_service_pb";

export const PLAYER_WORDS = {
  defaultName: (digits: string) => `Guest ${digits}`,
  yourName: "Your name ",
  namePlaceholder: "Your name at the table",
  guest: "guest",
  signedInAt: (host: string) => `signed in at ${host}`,
  signIn: (host: string) => `Sign in with ${host}`,
  signOut: "Sign out",
  signingIn: "Signing in…",
  signInFailed: (why: string) => `Signing in did not work: ${why}`,
  noPlayer: (why: string) => `Playing without a player (your seats stay in this browser): ${why}`,
  myGames: "My games",
  playerId: "Your player id",
  playerIdHint: "give it to a friend who holds a seat for you",
  claimed: (n: number) => (n === 1 ? "1 earlier seat of this browser is now yours." : `${n} earlier seats of this browser are now yours.`),
  // My games
  gamesTitle: "My games",
  gamesEmpty: "No games yet: join or create a table in the lobby.",
  gamesLoading: "Reading your games…",
  gamesFailed: (why: string) => `Your games could not be read: ${why}`,
  gamesHead: ["Table", "Game", "Joined", "Result", ""],
  gameSeat: (game: string, seat: number) => `${game}, seat ${seat}`,
  newer: "← Newer",
  older: "Older →",
  page: (n: number) => `Page ${n}`,
  resume: "Resume",
  watch: "Watch",
  replay: "Record & replay",
  result: (result: GameResult, place: number, score: number): string => {
    if (result === GameResult.PLAYING) return "playing";
    if (result === GameResult.WON) return `won with ${score}`;
    if (result === GameResult.LOST) return `lost: place ${place}, ${score}`;
    if (result === GameResult.STOPPED) return "stopped";
    return "unknown";
  },
  toLobby: "← Lobby",
  // Private tables and invites
  privateTable: "Private table: not listed, joined by an invite link",
  heldFor: (seat: number) => `Hold seat ${seat} for a player (their player id, optional) `,
  inviteTitle: "Invite",
  inviteText: "Send this link to the people you invite: it takes them to a seat at this table.",
  inviteLink: "Invite link",
  copy: "Copy the link",
  copied: "Copied",
  invitedTitle: (game: string) => `You are invited to a table of ${game}`,
  invitedSeats: (free: number) => (free === 1 ? "1 seat is free." : `${free} seats are free.`),
  invitedNoSeat: "No seat is free for you at this table.",
  invitedSeat: (seat: number, who: string) => `${seat}: ${who}`,
  bot: (strategy: string) => `${strategy} bot`,
  free: "free",
  invitedJoin: "Take a seat",
  invitedWatch: "Watch instead",
  invitedFailed: (why: string) => `This invite does not work: ${why}`,
  invitedBad: "This invite link is not complete: ask for it again.",
  // Held (reserved) seats
  heldForYou: "held for you",
  heldForOther: "held for a player",
  privateBadge: "private",
} as const;
