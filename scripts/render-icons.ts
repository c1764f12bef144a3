/**
 * Renders public/icon.svg into the PNG icons and favicon.ico that public/ ships (run once after
 * changing the SVG, then commit the files): `node --import tsx scripts/render-icons.ts`.
 * Uses the Chromium the end-to-end suite uses (CHROMIUM_PATH, default /usr/bin/chromium).
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Page } from '@playwright/test';

const PUBLIC = path.join(process.cwd(), 'public');

/**
 * The SVG drawn at `size` pixels, transparent unless a background is given; `inset` leaves a margin (for
 * apple-touch-icon).
 */
async function render(
  page: Page,
  svg: string,
  size: number,
  options: { background?: string; inset?: number } = {},
): Promise<Buffer> {
  const inset = options.inset ?? 0;
  const src = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
  await page.setViewportSize({ width: size, height: size });
  await page.setContent(
    `<html><body style="margin:0;background:${options.background ?? 'transparent'}">` +
      `<img src="${src}" style="display:block;margin:${inset}px;width:${size - 2 * inset}px;` +
      `height:${size - 2 * inset}px"></body></html>`,
  );
  await page.locator('img').evaluate((img: HTMLImageElement) => img.decode());
  return page.screenshot({
    omitBackground: options.background === undefined,
    clip: { x: 0, y: 0, width: size, height: size },
  });
}

/** An ICO file whose images are PNGs: a 6-byte header, one 16-byte entry per image, then the PNG bytes. */
function ico(images: { size: number; png: Buffer }[]): Buffer {
  const header = Buffer.alloc(6);
  header.writeUInt16LE(0, 0); // reserved
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(images.length, 4);
  let offset = 6 + 16 * images.length;
  const entries = images.map(({ size, png }) => {
    const entry = Buffer.alloc(16);
    entry.writeUInt8(size >= 256 ? 0 : size, 0); // width (0 means 256)
    entry.writeUInt8(size >= 256 ? 0 : size, 1); // height
    entry.writeUInt8(0, 2); // no palette
    entry.writeUInt8(0, 3); // reserved
    entry.writeUInt16LE(1, 4); // colour planes
    entry.writeUInt16LE(32, 6); // bits per pixel
    entry.writeUInt32LE(png.length, 8);
    entry.writeUInt32LE(offset, 12);
    offset += png.length;
    return entry;
  });
  return Buffer.concat([header, ...entries, ...images.map((image) => image.png)]);
}

async function main() {
  const svg = fs.readFileSync(path.join(PUBLIC, 'icon.svg'), 'utf8');
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu'],
  });
  try {
    const page = await browser.newPage({ deviceScaleFactor: 1 });
    const write = (name: string, bytes: Buffer) => {
      fs.writeFileSync(path.join(PUBLIC, name), bytes);
      console.log(`${name}: ${bytes.length} bytes`);
    };
    write('icon-192.png', await render(page, svg, 192));
    write('icon-512.png', await render(page, svg, 512));
    // iOS shows no transparency and rounds the corners itself: an opaque square with a margin.
    write('apple-touch-icon.png', await render(page, svg, 180, { background: '#ffffff', inset: 18 }));
    const sizes = [16, 32, 48];
    const pngs = [];
    for (const size of sizes) pngs.push({ size, png: await render(page, svg, size) });
    write('favicon.ico', ico(pngs));
  } finally {
    await browser.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
