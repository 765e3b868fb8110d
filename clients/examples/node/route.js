// Where this client's calls go in a cluster (docs/protocol.md, "Clusters"): the node that owns the table,
// among the nodes it knows. --server may name several nodes (a,b,c); calls go to the current one, and
// - a refusal TABLE_ELSEWHERE names the owner in its ErrorInfo metadata `endpoint`: go there, send the same
//   request again at once (it changed nothing where it was refused);
// - TABLE_MOVING (a takeover under way) is sent again after its RetryInfo delay;
// - a node that cannot be reached (UNAVAILABLE) is left for the next known one, which serves the table or
//   says where it went.
'use strict';

const MAX_REDIRECTS = 8; // redirects in a row: more means the nodes disagree
const MOVING_DELAY_MS = 250; // TABLE_MOVING without a RetryInfo delay

class Route {
  /** `spec`: "host:port" or "a:1,b:2"; `connect(address)`: a grpc-js client of the service there. */
  constructor(spec, connect) {
    this.known = spec.split(',').map((s) => s.trim()).filter((s) => s);
    if (!this.known.length) throw new Error(`no server address in ${JSON.stringify(spec)}`);
    this.address = this.known[0];
    this.connect = connect;
    this.clients = new Map();
    this.redirects = 0;
    this.followed = { elsewhere: 0, moving: 0, unreachable: 0 }; // what this client followed, for its report
  }

  /** The client of the node calls go to now. */
  client() {
    let client = this.clients.get(this.address);
    if (!client) {
      client = this.connect(this.address);
      this.clients.set(this.address, client);
    }
    return client;
  }

  /** Send calls to `address` from now on (Table.endpoint, a redirect's endpoint). */
  go(address) {
    if (!address) return;
    if (!this.known.includes(address)) this.known.push(address);
    this.address = address;
  }

  /**
   * After a failed call, given its ErrorInfo (`info`, or null) and RetryInfo delay in ms (or null): the delay
   * before sending it again, having moved to where the error points; null when the error is not about where
   * the table is (a transport failure is then retried with backoff, on the next known node).
   */
  follow(error, info, retryDelayMs, transient) {
    const reason = info ? info.reason : undefined;
    if (reason === 'TABLE_ELSEWHERE' && info.metadata && info.metadata.endpoint) {
      this.redirects += 1;
      if (this.redirects > MAX_REDIRECTS) return null;
      this.followed.elsewhere += 1;
      this.go(info.metadata.endpoint);
      return 0;
    }
    this.redirects = 0;
    if (reason === 'TABLE_MOVING') {
      this.followed.moving += 1;
      return retryDelayMs !== null ? retryDelayMs : MOVING_DELAY_MS;
    }
    if (reason === undefined && transient && this.known.length > 1) {
      this.followed.unreachable += 1;
      const index = this.known.indexOf(this.address);
      this.address = this.known[(index + 1) % this.known.length];
    }
    return null;
  }

  answered() {
    this.redirects = 0;
  }

  close() {
    for (const client of this.clients.values()) client.close();
  }
}

module.exports = { Route };
