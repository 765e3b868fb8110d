// The tab's icon as /favicon.ico (browsers ask for it whatever the page links): the same spade on green felt
// as src/favicon.svg, drawn into a 32x32 PNG and wrapped in an ICO, at build time with Node's zlib alone.
import { deflateSync } from "node:zlib";

const SIZE = 32;

function crc32(bytes) {
  let c = ~0;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

function chunk(type, data) {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, "ascii");
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** Inside the spade (in a 32-unit square): two lobes, a point on top, a stem. */
function spade(x, y) {
  const lobe = (cx) => (x - cx) ** 2 + (y - 17.5) ** 2 <= 4.6 ** 2;
  const top = y >= 5 && y <= 17.5 && Math.abs(x - 16) <= ((y - 5) / 12.5) * 9;
  const stem = y >= 19 && y <= 27 && Math.abs(x - 16) <= 1 + ((y - 19) / 8) * 2;
  return lobe(11.6) || lobe(20.4) || top || stem;
}

function inRoundedSquare(x, y) {
  const r = 7;
  const cx = Math.min(Math.max(x, r), SIZE - r);
  const cy = Math.min(Math.max(y, r), SIZE - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
}

export function faviconIco() {
  const rows = [];
  for (let y = 0; y < SIZE; y++) {
    const row = [0]; // filter: none
    for (let x = 0; x < SIZE; x++) {
      // 4x4 samples per pixel: smooth edges.
      let felt = 0, card = 0;
      for (let i = 0; i < 4; i++)
        for (let j = 0; j < 4; j++) {
          const px = x + (i + 0.5) / 4, py = y + (j + 0.5) / 4;
          if (spade(px, py)) card++;
          else if (inRoundedSquare(px, py)) felt++;
        }
      const alpha = (felt + card) / 16;
      const mix = felt + card ? card / (felt + card) : 0;
      const [r, g, b] = [0x1f + (0xfb - 0x1f) * mix, 0x6b + (0xfa - 0x6b) * mix, 0x43 + (0xf6 - 0x43) * mix];
      row.push(Math.round(r), Math.round(g), Math.round(b), Math.round(alpha * 255));
    }
    rows.push(...row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(SIZE, 0);
  header.writeUInt32BE(SIZE, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8 bits, RGBA
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(Buffer.from(rows), { level: 9 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
  const ico = Buffer.alloc(22);
  ico.writeUInt16LE(0, 0);
  ico.writeUInt16LE(1, 2); // an icon
  ico.writeUInt16LE(1, 4); // one image
  ico.set([SIZE, SIZE, 0, 0], 6);
  ico.writeUInt16LE(1, 10); // planes
  ico.writeUInt16LE(32, 12); // bits per pixel
  ico.writeUInt32LE(png.length, 14);
  ico.writeUInt32LE(22, 18);
  return Buffer.concat([ico, png]);
}
