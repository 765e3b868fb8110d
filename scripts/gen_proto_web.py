"""Regenerate the web client's TypeScript code ``clients/web/src/gen/`` from the contract in ``proto/``.

The sibling of ``gen_proto.py`` (``make proto`` runs both): ``buf generate`` (the ``buf`` of the venv's
buf-bin) with ``protoc-gen-es`` from ``clients/web/node_modules`` (pinned in
``clients/web/package-lock.json``, installed by ``make web``), ``target=ts``. protoc-gen-es 2 writes the
messages, enums and the service descriptor that ``@connectrpc/connect`` clients take, one ``*_pb.ts`` per
``.proto`` file; the well-known types (Duration, Timestamp) come from ``@bufbuild/protobuf/wkt``. The
output is committed; ``tests/test_proto.py`` fails when it is stale.

Usage::

    python scripts/gen_proto_web.py             # replace clients/web/src/gen with freshly generated code
    python scripts/gen_proto_web.py --out DIR   # write DIR/thousand/v1/*_pb.ts instead (used by the test)
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "proto"
WEB = ROOT / "clients" / "web"
TARGET = WEB / "src" / "gen"
PLUGIN = WEB / "node_modules" / ".bin" / "protoc-gen-es"


def buf() -> str:
    found = shutil.which("buf", path=str(Path(sys.executable).parent)) or shutil.which("buf")
    if found is None:
        raise SystemExit("buf not found: install the dev dependencies (pip install -e '.[dev]', buf-bin)")
    return found


def generate(out: Path) -> None:
    """Write the generated modules under ``out`` (``out/thousand/v1/*_pb.ts``)."""
    if not PLUGIN.exists():
        raise SystemExit(f"{PLUGIN.relative_to(ROOT)} is missing: run `make web` (npm ci in clients/web)")
    with tempfile.TemporaryDirectory() as tmp:
        template = Path(tmp) / "buf.gen.yaml"
        template.write_text(
            f"version: v2\nplugins:\n  - local: {PLUGIN}\n    out: {out}\n    opt: target=ts\n",
            encoding="utf-8",
        )
        subprocess.run(
            [buf(), "generate", str(PROTO_ROOT), "--template", str(template)], check=True, cwd=ROOT
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", type=Path, help="write DIR/thousand/v1/*_pb.ts instead of replacing clients/web/src/gen"
    )
    args = parser.parse_args()
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        generate(args.out.resolve())
        return
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp))
        if TARGET.exists():
            shutil.rmtree(TARGET)
        shutil.copytree(tmp, TARGET)
    count = len(list(TARGET.rglob("*_pb.ts")))
    print(f"generated {TARGET.relative_to(ROOT)}/ ({count} modules) from proto/")


if __name__ == "__main__":
    main()
