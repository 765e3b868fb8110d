// The web client's entry: one origin (the server serves this page and its services), pages by the address's
// hash: the lobby (#/), a table (#/table/ID: your seat if this browser holds one, else watching), a finished
// game's record and replay (#/replay/ID), the player's games (#/games), quick play's waiting screen (#/play/...),
// the leaderboards (#/leaderboard/...), the bots' ladder (#/bots/GAME), a player's ratings (#/profile/ID) and an invite to a private table
// (#/invite/ID/CODE). In a cluster a table's calls go to the node that owns it (route.ts); the page itself
// stays on the node it came from, and knows the cluster's other nodes. The page's language (the player's
// choice in this browser, else the browser's languages) and its player (a guest made at the first visit, or
// an account once signed in) are settled before the first page opens, so that every seat taken is the
// player's and every word is in that language.
import { LANG_KEY, chooseLanguage, language, languageOfLocale, loadLanguage, onLanguageChosen } from "./i18n";
import { Identity } from "./players/identity";
import { parseInvite } from "./players/invite";
import { Players } from "./players/players";
import { Nodes, Route } from "./route";
import { SeatStore } from "./seats";
import { openBots } from "./ui/bots";
import { openGames } from "./ui/games";
import { openInvite } from "./ui/invite";
import { openLeaderboard } from "./ui/leaderboard";
import { openLobby } from "./ui/lobby";
import { openProfile } from "./ui/profile";
import { openWaiting } from "./ui/quickplay";
import { openReplay } from "./ui/replay";
import { openTable } from "./ui/tablepage";

const container = document.getElementById("app")!;
const nodes = new Nodes(window.location.origin);
const anyNode = new Route(nodes); // no table's: the lobby's and the replays' calls, which any node answers
const store = new SeatStore(window.localStorage);
const players = new Players(new Identity(window.localStorage, window.sessionStorage), store, window.location.origin);
let close: (() => void) | undefined;

function go(hash: string): void {
  if (window.location.hash === hash) route();
  else window.location.hash = hash;
}

function route(): void {
  close?.();
  const [, page, id, ...rest] = window.location.hash.split("/");
  if (page === "table" && id) close = openTable({ nodes, store, tableId: id, container, onLeave: () => go("#/"), reopen: route });
  else if (page === "replay" && id) close = openReplay(anyNode, id, container);
  else if (page === "play") close = openWaiting({ nodes, store, container, go }, [id ?? "", ...rest]);
  else if (page === "leaderboard") close = openLeaderboard(anyNode, container, [id ?? "", ...rest]);
  else if (page === "bots") close = openBots(anyNode, container, id);
  else if (page === "profile") close = openProfile(anyNode, players, container, id);
  else if (page === "games") close = openGames(players, container);
  else if (page === "invite") close = openInvite({ anyNode, nodes, store, container, go }, parseInvite(window.location.hash));
  else close = openLobby({ anyNode, nodes, store, players, container, go });
  window.scrollTo(0, 0);
}

// The language is kept with the player too: a browser where the player never chose one (another device, a
// sign-in elsewhere) takes the profile's; a choice in the menu goes to the profile (UpdateMe).
async function followPlayersLanguage(): Promise<void> {
  onLanguageChosen((lang) => players.setLocale(lang));
  const stored = window.localStorage.getItem(LANG_KEY);
  const profile = languageOfLocale(players.me?.locale);
  if (stored === null && profile !== undefined && profile !== language()) await loadLanguage(profile);
  else if (stored !== null && players.me && !players.me.locale) await players.setLocale(language()).catch(() => undefined);
}

// Until then the page shows index.html's own "Loading…".
void loadLanguage(chooseLanguage(window.localStorage.getItem(LANG_KEY), navigator.languages))
  .then(() => players.start(window.location, window.history, window.sessionStorage))
  .then(followPlayersLanguage)
  .finally(() => {
    window.addEventListener("hashchange", route);
    route();
  });
