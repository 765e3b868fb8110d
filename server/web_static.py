"""The built web client (clients/web/dist by default) as static files, at ``/`` of the web port.

What a browser needs of a small single-page application and no more: GET and HEAD, a content type for each
file, ``index.html`` for a directory and for a path that names no file (the client's own routes), a
validator (ETag) so a reload costs a 304, and gzip for text, cached in memory once per file version (the
client is a few files; compressing them again for every page load would cost more CPU than serving the game).
Every response is ``no-cache``: a browser revalidates, so a rebuilt client is picked up on the next load.

A path never leaves the root (``..``, absolute paths and symbolic links out of it are refused as not found).
When the root holds no ``index.html`` (a checkout where the client was not built), every page is one that
says how to build it; the API on the same port works all the same.
"""

from __future__ import annotations

import gzip
import hashlib
import html
import mimetypes
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

ASGIReceive = Any
ASGISend = Any
Scope = dict[str, Any]

INDEX: Final = "index.html"
GZIP_MIN_BYTES: Final = 1024
"""Smaller files are sent as they are: gzip's framing would eat most of the gain."""
_COMPRESSIBLE: Final = (
    "text/",
    "application/javascript",
    "application/json",
    "application/manifest+json",
    "image/svg+xml",
    "application/wasm",
)
_TYPES: Final = {
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".html": "text/html; charset=utf-8",
    ".json": "application/json",
    ".map": "application/json",
    ".svg": "image/svg+xml",
    ".wasm": "application/wasm",
    ".webmanifest": "application/manifest+json",
    ".woff2": "font/woff2",
    ".txt": "text/plain; charset=utf-8",
}
"""Types that must not depend on the host's mime.types (JavaScript served as text/plain would not run)."""


@dataclass(frozen=True, slots=True)
class _File:
    """One version of a file, as it is served."""

    body: bytes
    gzipped: bytes | None
    content_type: str
    etag: str


def _content_type(path: Path) -> str:
    known = _TYPES.get(path.suffix.lower())
    if known is not None:
        return known
    guessed, _ = mimetypes.guess_type(path.name)
    return guessed or "application/octet-stream"


def not_built_page(root: Path) -> bytes:
    """The page served while the web client is not built."""
    where = html.escape(str(root))
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Thousand: the web client is not built</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; max-width: 40em; margin: 3em auto; line-height: 1.5">
<h1>The web client is not built</h1>
<p>This server serves the web client from <code>{where}</code>, which has no <code>index.html</code>.</p>
<p>Build it from the repository with <code>make web</code> (that is <code>npm ci</code> and
<code>npm run build</code> in <code>clients/web</code>; <code>make run</code> does it too), or start
the server with <code>--web-root</code> (<code>THOUSAND_WEB_ROOT</code>) naming a directory with a built
client.</p>
<p>The game's API is served on this port all the same, over Connect and gRPC-Web, at
<code>/thousand.v1.TableService/</code>: see docs/protocol.md, "From a browser".</p>
</body></html>
""".encode()


class StaticFiles:
    """An ASGI application serving the files under ``root``."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._cache: dict[Path, tuple[tuple[int, int], _File]] = {}

    @property
    def built(self) -> bool:
        return (self.root / INDEX).is_file()

    async def __call__(self, scope: Scope, receive: ASGIReceive, send: ASGISend) -> None:
        method = scope["method"]
        if method not in ("GET", "HEAD"):
            await _respond(send, 405, b"only GET and HEAD here\n", [(b"allow", b"GET, HEAD")])
            return
        if not self.built:
            page = not_built_page(self.root)
            await _respond(send, 503, page, [], "text/html; charset=utf-8", method=method)
            return
        path = self._resolve(scope["path"])
        if path is None:
            await _respond(send, 404, b"not found\n", [], method=method)
            return
        file = self._load(path)
        headers = [
            (b"etag", file.etag.encode()),
            (b"cache-control", b"no-cache"),
            (b"vary", b"accept-encoding"),
        ]
        if file.etag.encode() in _header(scope, b"if-none-match"):
            await _respond(send, 304, b"", headers, file.content_type, method="HEAD")
            return
        body = file.body
        if file.gzipped is not None and b"gzip" in _header(scope, b"accept-encoding"):
            body = file.gzipped
            headers.append((b"content-encoding", b"gzip"))
        await _respond(send, 200, body, headers, file.content_type, method=method)

    def _resolve(self, url_path: str) -> Path | None:
        """The file a URL path names, ``index.html`` for a client route, or None (404)."""
        relative = url_path.lstrip("/")
        if "\x00" in relative or any(part == ".." for part in relative.split("/")):
            return None
        candidate = (self.root / relative).resolve()
        if not candidate.is_relative_to(self.root):
            return None
        if candidate.is_dir():
            candidate = candidate / INDEX
        if candidate.is_file():
            return candidate
        if "." not in relative.rpartition("/")[2]:  # no extension: one of the client's routes
            return self.root / INDEX
        return None

    def _load(self, path: Path) -> _File:
        stat = path.stat()
        version = (stat.st_mtime_ns, stat.st_size)
        cached = self._cache.get(path)
        if cached is not None and cached[0] == version:
            return cached[1]
        body = path.read_bytes()
        content_type = _content_type(path)
        compressible = content_type.startswith(_COMPRESSIBLE) and len(body) >= GZIP_MIN_BYTES
        gzipped = gzip.compress(body, compresslevel=9, mtime=0) if compressible else None
        etag = '"' + hashlib.blake2b(body, digest_size=12).hexdigest() + '"'
        file = _File(
            body, gzipped if gzipped is not None and len(gzipped) < len(body) else None, content_type, etag
        )
        self._cache[path] = (version, file)
        return file


def _header(scope: Scope, name: bytes) -> bytes:
    return b",".join(value for key, value in scope.get("headers", ()) if key == name)


async def _respond(
    send: ASGISend,
    status: int,
    body: bytes,
    headers: list[tuple[bytes, bytes]],
    content_type: str = "text/plain; charset=utf-8",
    *,
    method: str = "GET",
) -> None:
    length = [] if status == 304 else [(b"content-length", str(len(body)).encode())]
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", content_type.encode()),
                *length,
                (b"x-content-type-options", b"nosniff"),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": b"" if method == "HEAD" else body})
