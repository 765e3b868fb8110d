// Where a table's calls go in a cluster (docs/protocol.md, "Clusters"; clients/routing.py does the same for
// Python): several server processes share one database and each table is played on one of them, its owner.
// Any node answers GetTable, ListTables, CreateTable, ExportTable and StreamTableRecord; JoinTable,
// SubmitAction, StreamEvents, LeaveTable and ReclaimSeat elsewhere are refused with TABLE_ELSEWHERE, whose
// metadata `web_endpoint` (and Table.web_endpoint) is the owner's web port, `host:port`.
//
// The page stays where it is (its URL, its localStorage, the seats it holds) and sends the table's calls to
// the owner's origin, in the page's own scheme: the nodes of a cluster allow each other's pages (CORS), so a
// page served by any node plays a table owned by any other. A refusal that points elsewhere is followed at
// once, TABLE_MOVING (a takeover under way) is waited out with its RetryInfo delay, and a node that cannot be
// reached is left for the next one the page knows (the one it came from, every node of the cluster its web
// port lists at /cluster.json, and every owner it was told of), which serves the table or says where it went.
import { backoffMs, failure, retryable, sleep, tableClient, type Failure, type TableClient } from "./api";

/** Milliseconds to wait on TABLE_MOVING without a RetryInfo delay. */
export const MOVING_DELAY_MS = 250;
/** Redirects followed in a row before a call fails: more means the cluster's nodes disagree. */
export const MAX_REDIRECTS = 8;
/** How long a call keeps following a table that moves before it gives up (a takeover takes a lease or two). */
export const MOVE_PATIENCE_MS = 60000;

/** Where a node's web port lists the cluster's nodes: `{"web_endpoints": ["host:port", ...]}` (none from a
 * server that is not part of a cluster). */
export const NODES_PATH = "/cluster.json";
const DISCOVER_TIMEOUT_MS = 5000;

/** The cluster's web nodes this page knows, by origin: the one it came from first, then those it learned. */
export class Nodes {
  readonly known: string[];
  private readonly clients = new Map<string, TableClient>();

  constructor(
    readonly home: string,
    private readonly make: (baseUrl: string) => TableClient = (url) => tableClient(url),
  ) {
    this.known = [home];
  }

  client(origin: string): TableClient {
    let client = this.clients.get(origin);
    if (client === undefined) {
      client = this.make(origin);
      this.clients.set(origin, client);
    }
    return client;
  }

  /** The origin of a node's web endpoint (`host:port`, in the page's scheme), remembered; undefined for none
   * (a server that is not part of a cluster, or an owner without a web port). */
  learn(webEndpoint: string): string | undefined {
    if (!webEndpoint) return undefined;
    const origin = new URL(`${new URL(this.home).protocol}//${webEndpoint}`).origin;
    if (!this.known.includes(origin)) this.known.push(origin);
    return origin;
  }

  /** Learn the cluster's nodes from the one at `origin` (its NODES_PATH), so that the page can go on when the
   * node it talks to dies, the one it came from included: the tables' owners alone may all be that one. A
   * node that cannot say changes nothing (the stream's watchdog asks again). */
  async discover(origin = this.home): Promise<void> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), DISCOVER_TIMEOUT_MS);
    try {
      const reply = await fetch(new URL(NODES_PATH, origin), { cache: "no-store", signal: controller.signal });
      if (!reply.ok) return;
      const listed = ((await reply.json()) as { web_endpoints?: unknown }).web_endpoints;
      if (Array.isArray(listed)) for (const endpoint of listed) if (typeof endpoint === "string") this.learn(endpoint);
    } catch {
      return; // unreachable, or not a node of this project: the nodes known stay as they are
    } finally {
      clearTimeout(timer);
    }
  }

  /** The known node after `origin` (for one that cannot be reached). */
  after(origin: string): string {
    const index = this.known.indexOf(origin);
    return this.known[(index + 1) % this.known.length] ?? this.home;
  }
}

/** Where one table's calls go now. */
export class Route {
  origin: string;
  private redirects = 0;

  constructor(
    readonly nodes: Nodes,
    webEndpoint = "",
  ) {
    this.origin = nodes.learn(webEndpoint) ?? nodes.home;
  }

  get client(): TableClient {
    return this.nodes.client(this.origin);
  }

  /** Send the table's calls to the node at `webEndpoint` (a Table's web_endpoint); "" changes nothing. */
  go(webEndpoint: string): void {
    this.origin = this.nodes.learn(webEndpoint) ?? this.origin;
  }

  /** After a failed call (sent to `sentTo`): the milliseconds to wait before sending it again, having moved to
   * where the failure points; undefined when it is not about where the table is (a transport failure moves on
   * to the next known node, unless another call moved already, and the caller decides whether and when to
   * retry), or when redirects went round in circles. */
  follow(f: Failure, sentTo = this.origin): number | undefined {
    if (f.reason === "TABLE_ELSEWHERE") {
      const owner = f.metadata["web_endpoint"] ?? "";
      this.redirects += 1;
      if (!owner || this.redirects > MAX_REDIRECTS) return undefined;
      this.go(owner);
      return 0;
    }
    this.redirects = 0;
    if (f.reason === "TABLE_MOVING") return f.retryDelayMs ?? MOVING_DELAY_MS;
    if (f.reason === "" && retryable(f) && sentTo === this.origin) this.origin = this.nodes.after(this.origin);
    return undefined;
  }

  /** A call was answered: the redirects in a row start again from none. */
  answered(): void {
    this.redirects = 0;
  }

  /** A unary call to the table's owner: redirects and moves followed (for up to MOVE_PATIENCE_MS), transport
   * failures (and RATE_LIMITED, STORE_UNAVAILABLE after their delay) retried unchanged up to `attempts`. */
  async call<T>(call: (client: TableClient) => Promise<T>, attempts = 6): Promise<T> {
    const started = Date.now();
    for (let attempt = 0; ; ) {
      const origin = this.origin;
      try {
        const result = await call(this.nodes.client(origin));
        this.answered();
        return result;
      } catch (error) {
        const f = failure(error);
        const wait = this.follow(f, origin);
        if (wait !== undefined && Date.now() - started < MOVE_PATIENCE_MS) {
          await sleep(wait);
          continue;
        }
        attempt += 1;
        if (!retryable(f) || attempt >= attempts) throw error;
        await sleep(f.retryDelayMs ?? backoffMs(attempt - 1));
      }
    }
  }
}
