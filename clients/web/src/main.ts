// The web client's entry: one origin (the server serves this page and the TableService), three pages by the
// address's hash: the lobby (#/), a table (#/table/ID: your seat if this browser holds one, else watching),
// and a finished game's record and replay (#/replay/ID).
import { tableClient } from "./api";
import { SeatStore } from "./seats";
import { openLobby } from "./ui/lobby";
import { openReplay } from "./ui/replay";
import { openTable } from "./ui/tablepage";

const container = document.getElementById("app")!;
const client = tableClient(window.location.origin);
const store = new SeatStore(window.localStorage);
let close: (() => void) | undefined;

function go(hash: string): void {
  if (window.location.hash === hash) route();
  else window.location.hash = hash;
}

function route(): void {
  close?.();
  const [, page, id] = window.location.hash.split("/");
  if (page === "table" && id) close = openTable({ client, store, tableId: id, container, onLeave: () => go("#/") });
  else if (page === "replay" && id) close = openReplay(client, id, container);
  else close = openLobby({ client, store, container, go });
  window.scrollTo(0, 0);
}

window.addEventListener("hashchange", route);
route();
