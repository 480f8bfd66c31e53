// Writes packages/console/public/favicon.ico from its favicon.svg (docs/console.md, "Design
// system"): the SVG drawn by Debian's Chromium (as the browser tests drive it) at 16, 32 and 48 px,
// each PNG put in one ICO file as is (an ICO entry may hold a PNG). Run it after changing the SVG,
// and commit both: `node --import tsx scripts/console-favicon.ts`.
import fs from 'node:fs';
import path from 'node:path';
import { findChromium, launch } from '../packages/console/test/support/browser.ts';

const PUBLIC = path.resolve(import.meta.dirname, '../packages/console/public');
const SIZES = [16, 32, 48];

const found = findChromium();
if (!('path' in found)) throw new Error(`Chromium not found at ${found.missing}`);
const svg = fs.readFileSync(path.join(PUBLIC, 'favicon.svg'));
const browser = await launch(found.path);
const pngs: Buffer[] = [];
try {
  const page = await browser.newPage();
  for (const size of SIZES) {
    await page.setViewportSize({ width: size, height: size });
    await page.setContent(`<body style="margin:0"><img src="data:image/svg+xml;base64,${svg.toString('base64')}" width="${size}" height="${size}"></body>`);
    await page.locator('img').evaluate((img: HTMLImageElement) => img.decode());
    pngs.push(await page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } }));
  }
} finally {
  await browser.close();
}

// ICONDIR (6 bytes), one ICONDIRENTRY (16 bytes) per image, then the images.
const header = Buffer.alloc(6 + 16 * pngs.length);
header.writeUInt16LE(0, 0);
header.writeUInt16LE(1, 2); // an icon
header.writeUInt16LE(pngs.length, 4);
let offset = header.length;
pngs.forEach((png, i) => {
  const entry = 6 + 16 * i;
  header.writeUInt8(SIZES[i]! % 256, entry); // width (0 would mean 256)
  header.writeUInt8(SIZES[i]! % 256, entry + 1);
  header.writeUInt8(0, entry + 2); // no palette
  header.writeUInt8(0, entry + 3);
  header.writeUInt16LE(1, entry + 4); // colour planes
  header.writeUInt16LE(32, entry + 6); // bits per pixel
  header.writeUInt32LE(png.length, entry + 8);
  header.writeUInt32LE(offset, entry + 12);
  offset += png.length;
});
fs.writeFileSync(path.join(PUBLIC, 'favicon.ico'), Buffer.concat([header, ...pngs]));
console.log(`wrote ${path.join(PUBLIC, 'favicon.ico')} (${offset} bytes: ${SIZES.join(', ')} px)`);
