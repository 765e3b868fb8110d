"""Regenerate the Python package ``thousand/`` from the protobuf contract in ``proto/`` (``make proto``).

Runs the protoc bundled with grpcio-tools with six outputs: ``*_pb2.py`` (messages), ``*_pb2_grpc.py``
(gRPC service stubs), their typed stubs ``*_pb2.pyi`` / ``*_pb2_grpc.pyi`` from mypy-protobuf,
``*_connect.py`` from protoc-gen-connectrpc (the service over Connect and gRPC-Web, for google.protobuf
messages and asyncio: the web port's application, server/web.py, and a Connect client tests use), and
``*_pb.py`` from protoc-gen-py (the same messages for protobuf-py, whose native JSON mapping the web port's
JSON codec uses). The versions of grpcio-tools, mypy-protobuf, protoc-gen-connectrpc, protoc-gen-py and
protobuf are pinned in ``pyproject.toml``, so the output is reproducible and committed;
``tests/test_proto.py`` fails when it is stale.

Usage::

    python scripts/gen_proto.py              # replace ./thousand with freshly generated code
    python scripts/gen_proto.py --out DIR    # write the package to DIR/thousand instead (used by the test)
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "proto"
PACKAGE = "thousand"

INIT_FILES = {
    f"{PACKAGE}/__init__.py": (
        '"""Generated code of the protobuf contract in ``proto/`` (``make proto``); do not edit."""\n'
    ),
    f"{PACKAGE}/v1/__init__.py": (
        '"""``thousand.v1``: messages, enums and service stubs generated from ``proto/thousand/v1``."""\n'
    ),
    f"{PACKAGE}/py.typed": "",
}
"""Files protoc does not write: the package markers and the PEP 561 marker for the typed stubs."""
CONNECT_OPTIONS = "protobuf=google,io=async"
"""protoc-gen-connectrpc's options: code for the ``*_pb2`` modules' messages (google.protobuf), asyncio."""


def proto_files() -> list[Path]:
    """The contract's .proto files, relative to ``proto/``, in a stable order."""
    return sorted(p.relative_to(PROTO_ROOT) for p in (PROTO_ROOT / PACKAGE).rglob("*.proto"))


def has_service(relative: Path) -> bool:
    return (
        re.search(r"^service\s", (PROTO_ROOT / relative).read_text(encoding="utf-8"), re.MULTILINE)
        is not None
    )


def generate(out: Path) -> None:
    """Write the generated package to ``out / "thousand"`` (``out`` must exist).

    Messages and their stubs are generated for every file; the gRPC and Connect modules only for files that
    define a service (protoc would otherwise write an empty ``*_pb2_grpc.py`` beside every message file).
    """
    import grpc_tools  # noqa: PLC0415 - a dev dependency, only needed when generating

    well_known = Path(grpc_tools.__file__).parent / "_proto"
    bindir = Path(sys.executable).parent
    protoc = [
        sys.executable,
        "-m",
        "grpc_tools.protoc",
        f"--proto_path={PROTO_ROOT}",
        f"--proto_path={well_known}",
    ]
    files = proto_files()
    messages = [f"--python_out={out}", f"--plugin=protoc-gen-mypy={bindir / 'protoc-gen-mypy'}"]
    messages.append(f"--mypy_out=quiet:{out}")
    messages += [f"--plugin=protoc-gen-py={bindir / 'protoc-gen-py'}", f"--py_out={out}"]
    subprocess.run([*protoc, *messages, *map(str, files)], check=True, cwd=PROTO_ROOT)
    services = [str(f) for f in files if has_service(f)]
    if services:
        grpc = [
            f"--grpc_python_out={out}",
            f"--plugin=protoc-gen-mypy_grpc={bindir / 'protoc-gen-mypy_grpc'}",
        ]
        grpc.append(f"--mypy_grpc_out=quiet:{out}")
        subprocess.run([*protoc, *grpc, *services], check=True, cwd=PROTO_ROOT)
        connect = [
            f"--plugin=protoc-gen-connectrpc={bindir / 'protoc-gen-connectrpc'}",
            f"--connectrpc_out={CONNECT_OPTIONS}:{out}",
        ]
        subprocess.run([*protoc, *connect, *services], check=True, cwd=PROTO_ROOT)
    for name, text in INIT_FILES.items():
        (out / name).write_text(text, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="write DIR/thousand instead of replacing ./thousand")
    args = parser.parse_args()
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        generate(args.out)
        return
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp))
        target = ROOT / PACKAGE
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(Path(tmp) / PACKAGE, target)
    print(f"generated {PACKAGE}/ from {len(proto_files())} files in proto/")


if __name__ == "__main__":
    main()
