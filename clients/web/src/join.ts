// Taking a seat: with a seat token of our own (a retried JoinTable returns the same seat), our own seed for
// the deals (the same on every retry of this join), and the table's commitment read before the seed is sent
// (docs/protocol.md, "Verifiable deals"). What the deals' checks need is kept with the seat. In a cluster the
// join goes to the table's owner (route.ts).
import { currentPlayerId, randomToken } from "./api";
import { Route, type Nodes } from "./route";
import type { SeatRecord, SeatStore } from "./seats";

/** `invite`: the table's invite code (a private table), kept with the seat so that its link stays at hand. */
export async function takeSeat(nodes: Nodes, store: SeatStore, tableId: string, seat?: number, invite?: string): Promise<SeatRecord> {
  const name = store.playerName() || "Player";
  const route = new Route(nodes);
  const { table } = await route.call((c) => c.getTable({ tableId }));
  route.go(table?.webEndpoint ?? "");
  const commitment = table?.fairness?.commitment || undefined;
  const clientSeed = table?.seeded ? undefined : randomToken(32);
  const request = { tableId, seat, playerName: name, seatToken: randomToken(32), clientSeed: clientSeed ?? "", inviteCode: invite ?? "" };
  const player = currentPlayerId(); // the call carries the player's credential: the seat is theirs
  const joined = await route.call((c) => c.joinTable(request));
  if (commitment && joined.table?.fairness?.commitment !== commitment)
    console.warn("the table's commitment changed while joining: its deals will fail their checks");
  const record: SeatRecord = {
    tableId,
    seat: joined.seat,
    token: joined.seatToken,
    name,
    clientSeed,
    commitment,
    joinedAt: joined.table?.sequence.toString(),
  };
  if (player) record.player = player;
  if (invite) record.invite = invite;
  store.keep(record);
  store.dropState(tableId);
  return record;
}
