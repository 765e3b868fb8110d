// The web client's entry: one origin (the server serves this page and the TableService), three pages by the
// address's hash: the lobby (#/), a table (#/table/ID: your seat if this browser holds one, else watching),
// and a finished game's record and replay (#/replay/ID). In a cluster a table's calls go to the node that owns
// it (route.ts); the page itself stays on the node it came from, and knows the cluster's other nodes.
import { Nodes } from "./route";
import { SeatStore } from "./seats";
import { openLobby } from "./ui/lobby";
import { openReplay } from "./ui/replay";
import { openTable } from "./ui/tablepage";

const container = document.getElementById("app")!;
const nodes = new Nodes(window.location.origin);
void nodes.discover(); // the cluster's other nodes, for the page to go on with should this one die
const client = nodes.client(nodes.home);
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
  else if (page === "replay" && id) close = openReplay(client, id, container);
  else close = openLobby({ client, nodes, store, container, go });
  window.scrollTo(0, 0);
}

window.addEventListener("hashchange", route);
route();
