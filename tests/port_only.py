"""``python -m tests.port_only --port N [ignored flags]``: a process that listens on the port and never
serves gRPC, then exits 1 after a second: what tests/test_server_start.py starts as a
:class:`tests.live_server.LiveServer`, which must not count it as a server that started."""

from __future__ import annotations

import socket
import sys
import time

if __name__ == "__main__":
    port = int(sys.argv[sys.argv.index("--port") + 1])
    with socket.create_server(("127.0.0.1", port)):
        print(f"port_only: listening on {port}, serving nothing", file=sys.stderr, flush=True)
        time.sleep(1.0)
    sys.exit(1)
