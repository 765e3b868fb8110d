// What this client knows of Thousand itself, apart from the frame the contract shares among its games: the
// table it creates, the `thousand` case of a snapshot's view, of an event and of a legal action, and the
// line it prints for a scored deal. Everything else (streams, retries, refusals, seats) is the same for
// every game of the contract.
'use strict';

/**
 * The CreateTable request of a Thousand table: seat 0 open for this client, two server-run bots. A seed
 * makes every card known to whoever knows it: a practice table.
 */
function tableRequest(options) {
  const create = {
    game: 'GAME_KIND_THOUSAND',
    seats: [
      { kind: 'SEAT_KIND_OPEN' },
      { kind: 'SEAT_KIND_BOT', strategy: options.strategy },
      { kind: 'SEAT_KIND_BOT', strategy: options.strategy },
    ],
  };
  if (options.seed !== null) {
    create.seed = String(options.seed);
    create.practice = true;
  }
  return create;
}

/** A snapshot's view of the game (winner, standings, ...), or undefined when it holds none. */
function snapshotView(snapshot) {
  return snapshot.view && snapshot.view.thousand;
}

/** The ThousandEvent of a table event, or null: seat_taken, seat_released, or a case unknown here. */
function gameEvent(event) {
  return event.event === 'thousand' ? event.thousand : null;
}

/**
 * The legal actions of a Turn that this client understands: one of a newer contract would decode here
 * without its case, and re-encode as an empty (malformed) action.
 */
function knownActions(turn) {
  return turn.legal_actions.filter((a) => a.game === 'thousand' && a.thousand.action !== undefined);
}

/** The line shown for a DealScored event: who declared what, and how it went. */
function dealLine(d) {
  const outcome = typeof d.outcome === 'string' ? d.outcome.replace('OUTCOME_', '').toLowerCase() : d.outcome;
  return `deal ${d.number}: seat ${d.declarer} ${outcome} ${d.contract}; scores ${d.totals.join(' / ')}`;
}

module.exports = { tableRequest, snapshotView, gameEvent, knownActions, dealLine };
