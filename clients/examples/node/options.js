// The command line of play.js: its options, their defaults, and the usage text. A bad argument ends the
// client with exit status 64 before anything is sent.
'use strict';

const USAGE = `usage: node play.js [options]

  --server ADDR          the server, host:port, or several nodes of a cluster: a:port,b:port (default:
                         $THOUSAND_SERVER or 127.0.0.1:50051); redirects and takeovers are followed
  --table ID             join seat 0 of this existing table instead of creating one
  --strategy NAME        the two bots' strategy (default: greedy)
  --seed N               a practice table dealt from seed N (marked seeded for everyone), and the seed of
                         this client's random choices (default: fair deals, random choices)
  --name NAME            this player's display name (default: node)
  --player-token TOKEN   play as this player (a player token, or an OpenID Connect token), sent as
                         \`authorization: Bearer\` on every call: the game joins the player's history
                         (default: $THOUSAND_PLAYER_TOKEN; none: an anonymous seat)
  --invite CODE          with --table: the invite code of a private table
  --quick-play           instead of creating a table: wait in the server's quick-play queue for a game
                         of Thousand, and play the seat a match gives (bots fill it after --wait)
  --players N            with --quick-play: players at the table, 2 to 4 (default: 3)
  --wait S               with --quick-play: seconds to wait before bots fill the seats (default: 5)
  --max-seconds S        give up after S seconds: print {"finished": false, ...} and exit 2 (default: none)
  --drop-every N         cancel the stream after every N messages and resume it (exercises resumption)
  --unary                stream with StreamEvents and act with SubmitAction instead of one Play stream
  --snapshot             start from a snapshot of the table as it is (the deal in progress checked from
                         the snapshot's Snapshot.deal) instead of the table's first event
  --quiet                print only the standings and the JSON line, not a line per deal
  --help                 this text`;

function parseArgs(argv) {
  const options = {
    server: process.env.THOUSAND_SERVER || '127.0.0.1:50051',
    strategy: 'greedy',
    seed: null,
    name: 'node',
    maxSeconds: 0,
    dropEvery: 0,
    quiet: false,
    unary: false,
    snapshot: false,
    table: null,
    playerToken: process.env.THOUSAND_PLAYER_TOKEN || '',
    invite: '',
    quickPlay: false,
    players: 3,
    wait: 5,
  };
  const value = (i, flag) => {
    if (i + 1 >= argv.length) fail(`${flag} needs a value`);
    return argv[i + 1];
  };
  const integer = (text, flag) => {
    if (!/^\d+$/.test(text)) fail(`${flag} must be a non-negative integer, not ${JSON.stringify(text)}`);
    return Number(text);
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    switch (flag) {
      case '--server': options.server = value(i++, flag); break;
      case '--strategy': options.strategy = value(i++, flag); break;
      case '--seed': options.seed = integer(value(i++, flag), flag); break;
      case '--name': options.name = value(i++, flag); break;
      case '--max-seconds': {
        const s = Number(value(i++, flag));
        if (!(s >= 0)) fail('--max-seconds must be a number of seconds');
        options.maxSeconds = s;
        break;
      }
      case '--drop-every': options.dropEvery = integer(value(i++, flag), flag); break;
      case '--quiet': options.quiet = true; break;
      case '--unary': options.unary = true; break;
      case '--snapshot': options.snapshot = true; break;
      case '--table': options.table = value(i++, flag); break;
      case '--player-token': options.playerToken = value(i++, flag); break;
      case '--invite': options.invite = value(i++, flag); break;
      case '--quick-play': options.quickPlay = true; break;
      case '--players': options.players = integer(value(i++, flag), flag); break;
      case '--wait': options.wait = integer(value(i++, flag), flag); break;
      case '--help': case '-h': console.log(USAGE); process.exit(0); break;
      default: fail(`unknown argument ${JSON.stringify(flag)}\n\n${USAGE}`);
    }
  }
  return options;
}

function fail(message) {
  console.error(`play.js: ${message}`);
  process.exit(64);
}

module.exports = { parseArgs };
