// The web client's entry: one origin (the server serves this page and the TableService), three pages by the
// address's hash: the lobby (#/), a table (#/table/ID: your seat if this browser holds one, else watching),
// and a finished game's record and replay (#/replay/ID). In a cluster a table's calls go to the node that owns
// it (route.ts); the page itself stays on the node it came from, and knows the cluster's other nodes.
import { LANG_KEY, chooseLanguage, loadLanguage } from "./i18n";
import { Nodes, Route } from "./route";
import { SeatStore } from "./seats";
import { openLobby } from "./ui/lobby";
import { openReplay } from "./ui/replay";
import { openTable } from "./ui/tablepage";

const container = document.getElementById("app")!;
const nodes = new Nodes(window.location.origin);
const anyNode = new Route(nodes); // no table's: the lobby's and the replays' calls, which any node answers
const store = new SeatStore(window.localStorage);
let close: (() => void) | undefined;

function go(hash: string): void {
  if (window.location.hash === hash) route();
  else window.location.hash = hash;
}

function route(): void {
  close?.();
  const [, page, id] = window.location.hash.split("/");
  if (page === "table" && id) close = openTable({ nodes, store, tableId: id, container, onLeave: () => go("#/") });
  else if (page === "replay" && id) close = openReplay(anyNode, id, container);
  else close = openLobby({ anyNode, nodes, store, container, go });
  window.scrollTo(0, 0);
}

// The page's language first (the player's choice in this browser, else the browser's languages), then the page.
void loadLanguage(chooseLanguage(window.localStorage.getItem(LANG_KEY), navigator.languages)).then(() => {
  window.addEventListener("hashchange", route);
  route();
});
