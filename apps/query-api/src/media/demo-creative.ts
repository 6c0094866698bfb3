import { createHash } from 'node:crypto';
import sharp from 'sharp';

/**
 * Deterministic demo creatives: an ad people recognise as one (brand, headline, call to action on a palette of its
 * category), drawn as SVG and rendered by sharp's own librsvg. Everything about the design comes from a hash of the
 * family's first creative, so a recut keeps the design and changes only what its kind says.
 */
export const RECUT_KINDS = ['crop', 'colour', 'wording'] as const;
export type RecutKind = (typeof RECUT_KINDS)[number];

export interface DemoCreativeSpec {
  /** The family's first creative: the design's seed. */
  root: string;
  recut: RecutKind | null;
  /** Carousel card (0 for the first or only picture). */
  card: number;
  brand: string;
  headline: string;
  cta: string;
  category: string;
  /** 'portrait' for a video's poster frame (9:16), else square. */
  shape: 'square' | 'portrait';
}

/** The face the renderer asks fontconfig for; docker/Dockerfile installs it (fonts-dejavu-core). */
const FONT = "'DejaVu Sans', 'Liberation Sans', sans-serif";

const PALETTES: Record<string, [string, string, string]> = {
  gambling_and_betting: ['#1b0f3b', '#6a1b9a', '#ffd54f'],
  finance_and_banking: ['#0d2b45', '#1565c0', '#4dd0e1'],
  dating_and_relationships: ['#5c0a2e', '#d81b60', '#ffcdd2'],
  ecommerce_and_retail: ['#e65100', '#ffb300', '#212121'],
  healthcare_and_medical: ['#004d40', '#26a69a', '#e0f2f1'],
  crypto_and_trading: ['#0b0f14', '#263238', '#00e676'],
  mobile_games: ['#1a237e', '#7c4dff', '#ff4081'],
};
const OTHER_PALETTES: [string, string, string][] = [
  ['#263238', '#546e7a', '#ffca28'],
  ['#3e2723', '#8d6e63', '#ffe0b2'],
  ['#1b5e20', '#66bb6a', '#fff59d'],
  ['#311b92', '#5e35b1', '#b2ff59'],
  ['#b71c1c', '#ef5350', '#fff8e1'],
];
const CTAS: Record<string, string[]> = {
  gambling_and_betting: ['Claim bonus', 'Play now', 'Get spins'],
  finance_and_banking: ['Apply now', 'Open account', 'Check rates'],
  dating_and_relationships: ['Join free', 'Meet singles', 'Start chatting'],
  ecommerce_and_retail: ['Shop now', 'Get the deal', 'Buy today'],
  mobile_games: ['Install', 'Play free', 'Download'],
  crypto_and_trading: ['Start trading', 'Sign up', 'Get wallet'],
};
const OTHER_CTAS = ['Learn more', 'Sign up', 'Get offer', 'Book now'];

/** The scheme of a demo picture's URL in the demo NDJSON: ingest renders it (media-ingest.ts) instead of reading a file. */
export const DEMO_SCHEME = 'demo:';

/** A demo picture as a URL: `demo:<root>/<card>?recut=&brand=&headline=&cta=&category=&shape=`. */
export function demoMediaUrl(spec: DemoCreativeSpec): string {
  const query = new URLSearchParams({
    ...(spec.recut ? { recut: spec.recut } : {}),
    brand: spec.brand,
    headline: spec.headline,
    cta: spec.cta,
    category: spec.category,
    shape: spec.shape,
  });
  return `${DEMO_SCHEME}${spec.root}/${spec.card}?${query}`;
}

/** The spec a demo URL names, or null when it is not one. */
export function parseDemoMediaUrl(url: string): DemoCreativeSpec | null {
  const match = /^demo:([A-Za-z0-9_-]{1,128})\/(\d{1,2})\?(.*)$/.exec(url);
  if (!match) return null;
  const query = new URLSearchParams(match[3]);
  const recut = query.get('recut');
  const shape = query.get('shape');
  const [brand, headline, cta, category] = ['brand', 'headline', 'cta', 'category'].map((k) => query.get(k)?.slice(0, 200) ?? '');
  if (!brand || !category || (recut && !RECUT_KINDS.includes(recut as RecutKind)) || (shape !== 'square' && shape !== 'portrait')) return null;
  return { root: match[1] as string, card: Number(match[2]), recut: (recut as RecutKind | null) ?? null, brand, headline: headline ?? '', cta: cta ?? '', category, shape };
}

/** A call to action that fits the category, chosen by the creative. */
export function demoCallToAction(category: string, creativeId: string): string {
  const options = CTAS[category] ?? OTHER_CTAS;
  return options[digest(creativeId).readUInt8(0) % options.length] as string;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] as string);
}

/** Words wrapped into lines of at most `width` characters (at most `max` lines). */
function wrap(text: string, width: number, max: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.slice(0, max);
}

/** The rendered size: small enough that a 100k-ad seed stays quick, large enough to read. */
export const DEMO_SIDE = 360;

function svgOf(spec: DemoCreativeSpec): string {
  const width = DEMO_SIDE;
  const height = spec.shape === 'portrait' ? Math.round((DEMO_SIDE * 16) / 9) : DEMO_SIDE;
  const d = digest(`${spec.root}#${spec.card}`);
  const byte = (i: number) => d[i % d.length] as number;
  const unit = (i: number) => byte(i) / 255;
  const palette = PALETTES[spec.category] ?? (OTHER_PALETTES[byte(0) % OTHER_PALETTES.length] as [string, string, string]);
  const [dark, mid, accent] = palette;
  // The large light and dark areas are what the perceptual hash sees: they vary per family (shapes, a product panel,
  // where the headline and the button sit, which way the gradient runs), so unrelated creatives look different to
  // it, while the text itself moves it little.
  const shapes: string[] = [];
  for (let s = 0; s < 5; s++) {
    const cx = unit(1 + s * 3) * width;
    const cy = unit(2 + s * 3) * height;
    const r = width * (0.1 + unit(3 + s * 3) * 0.35);
    const light = s % 2 === 1;
    shapes.push(`<circle cx="${cx.toFixed(0)}" cy="${cy.toFixed(0)}" r="${r.toFixed(0)}" fill="${light ? '#ffffff' : '#000000'}" fill-opacity="${light ? 0.6 : 0.5}"/>`);
  }
  const panelW = width * (0.3 + unit(17) * 0.3);
  const panelH = height * (0.25 + unit(18) * 0.35);
  const panelX = unit(19) * (width - panelW);
  const panelY = unit(20) * (height - panelH);
  const panel = `<rect x="${panelX.toFixed(0)}" y="${panelY.toFixed(0)}" width="${panelW.toFixed(0)}" height="${panelH.toFixed(0)}" rx="18" fill="${byte(21) % 2 ? '#ffffff' : accent}" fill-opacity="0.85"/>`;
  const bandY = (0.15 + unit(14) * 0.7) * height;
  const bandAngle = -35 + unit(15) * 70;
  const [x1, y1, x2, y2] = [[0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0]][byte(16) % 4] as number[];
  const right = byte(22) % 2 === 1;
  const anchor = right ? 'end' : 'start';
  const textX = right ? width - 28 : 28;
  const headlineLines = wrap(spec.headline, 16, 3);
  const headlineSize = Math.round(width / 12);
  const headlineTop = height * (0.28 + unit(23) * 0.3);
  const buttonW = width * 0.5;
  const buttonX = [28, (width - buttonW) / 2, width - 28 - buttonW][byte(24) % 3] as number;
  const brandInitial = escapeXml(spec.brand.charAt(0).toUpperCase());
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">
<defs><linearGradient id="g" x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}"><stop offset="0" stop-color="${dark}"/><stop offset="1" stop-color="${mid}"/></linearGradient></defs>
<rect width="${width}" height="${height}" fill="url(#g)"/>
${shapes.join('\n')}
<rect x="${-width * 0.2}" y="${bandY.toFixed(0)}" width="${width * 1.4}" height="${(height * 0.1).toFixed(0)}" fill="${accent}" fill-opacity="0.8" transform="rotate(${bandAngle.toFixed(1)} ${width / 2} ${bandY.toFixed(0)})"/>
${panel}
<circle cx="40" cy="40" r="22" fill="${accent}"/><text x="40" y="49" text-anchor="middle" font-size="24" font-weight="bold" fill="${dark}" font-family="${FONT}">${brandInitial}</text>
<text x="72" y="47" font-size="18" font-weight="bold" fill="#ffffff" font-family="${FONT}">${escapeXml(spec.brand)}</text>
${headlineLines
  .map(
    (line, i) =>
      `<text x="${textX}" y="${(headlineTop + i * headlineSize * 1.15).toFixed(0)}" text-anchor="${anchor}" font-size="${headlineSize}" font-weight="bold" fill="#ffffff" stroke="${dark}" stroke-width="1.5" font-family="${FONT}">${escapeXml(line)}</text>`,
  )
  .join('\n')}
<rect x="${buttonX.toFixed(0)}" y="${height - 84}" width="${buttonW}" height="50" rx="25" fill="${accent}" stroke="${dark}" stroke-width="2"/>
<text x="${(buttonX + buttonW / 2).toFixed(0)}" y="${height - 51}" text-anchor="middle" font-size="21" font-weight="bold" fill="${dark}" font-family="${FONT}">${escapeXml(spec.cta)}</text>
<text x="${width - 12}" y="${height - 10}" text-anchor="end" font-size="11" fill="#ffffff" fill-opacity="0.8" font-family="${FONT}">Sponsored</text>
</svg>`;
}

/** Decoded pixels, as sharp gives and takes them. */
export interface RawImage {
  data: Buffer;
  width: number;
  height: number;
  channels: 1 | 2 | 3 | 4;
}

/** Card 0 of recent creatives: the other cards of a carousel are card 0 with its number drawn on (no new layout). */
const firstCards = new Map<string, Promise<RawImage>>();
const FIRST_CARDS_KEPT = 256;

/**
 * The creative's pixels: the family's design, then the recut's change (crop, colour). Cards after the first are the
 * first with their number on a badge: one layout per creative, so a 100k-ad seed renders about one SVG per creative.
 */
export async function renderDemoCreative(spec: DemoCreativeSpec): Promise<RawImage> {
  if (spec.card === 0) return renderFirstCard(spec);
  const key = JSON.stringify({ ...spec, card: 0 });
  let first = firstCards.get(key);
  if (!first) {
    first = renderFirstCard({ ...spec, card: 0 });
    firstCards.set(key, first);
    if (firstCards.size > FIRST_CARDS_KEPT) firstCards.delete(firstCards.keys().next().value as string);
  }
  const base = await first;
  const badge = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="40"><rect width="64" height="40" rx="20" fill="#000000" fill-opacity="0.6"/>` +
      `<text x="32" y="27" text-anchor="middle" font-size="20" font-weight="bold" fill="#ffffff" font-family="${FONT}">${spec.card + 1}</text></svg>`,
  );
  const { data, info } = await sharp(base.data, { raw: base })
    .composite([{ input: badge, top: 12, left: base.width - 76 }])
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

async function renderFirstCard(spec: DemoCreativeSpec): Promise<RawImage> {
  let image = sharp(Buffer.from(svgOf(spec)));
  if (spec.recut === 'colour') image = image.modulate({ hue: 30 + ((digest(spec.root)[20] ?? 0) % 120) });
  const { data, info } = await image.raw().toBuffer({ resolveWithObject: true });
  const raw: RawImage = { data, width: info.width, height: info.height, channels: info.channels };
  if (spec.recut !== 'crop') return raw;
  const inset = Math.round(raw.width * 0.02);
  const cropped = await sharp(raw.data, { raw })
    .extract({ left: inset, top: inset, width: raw.width - 2 * inset, height: raw.height - 2 * inset })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data: cropped.data, width: cropped.info.width, height: cropped.info.height, channels: cropped.info.channels };
}
