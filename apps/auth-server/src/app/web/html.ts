/** Server-rendered pages: no scripts, no external assets, one inline stylesheet. */
import type { Response } from 'express';

const escapeHtml = (value: unknown): string =>
  String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

/** Tagged template that escapes every interpolated value unless it is already `Html`. */
export class Html {
  constructor(readonly value: string) {}
  toString() {
    return this.value;
  }
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += renderValue(value) + (strings[i + 1] ?? '');
  });
  return new Html(out);
}

function renderValue(value: unknown): string {
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(renderValue).join('');
  if (value === undefined || value === null || value === false) return '';
  return escapeHtml(value);
}

/** Headers for every page: nothing loads from elsewhere, nothing frames us, nothing is cached. */
const PAGE_HEADERS: Record<string, string> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};

/** Sends a server-rendered page with the page headers. */
export function sendPage(res: Response, status: number, body: string) {
  res.status(status).set(PAGE_HEADERS).send(body);
}

/** A form field as a string of at most `max` characters ('' when absent or not a string). */
export const formString = (value: unknown, max: number) => (typeof value === 'string' ? value.slice(0, max) : '');

/** The sign-in error shown while an email is paused after too many failures. */
export const throttledMessage = (retryAfterSeconds: number) =>
  `Too many failed sign-ins for this account. Try again in ${Math.ceil(retryAfterSeconds / 60)} minute(s).`;

const STYLE = `
:root{color-scheme:light dark;--fg:#1b1f24;--bg:#f6f7f9;--card:#fff;--muted:#57606a;--accent:#0b5cad;--danger:#b42318;--border:#d0d7de}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--card:#161b22;--muted:#9da7b3;--accent:#58a6ff;--danger:#ff7b72;--border:#30363d}}
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:46rem;margin:2rem auto;padding:0 1rem}.card{background:var(--card);border:1px solid var(--border);border-radius:8px;padding:1.5rem;margin-bottom:1.5rem}
h1{font-size:1.5rem;margin:0 0 1rem}h2{font-size:1.15rem;margin:0 0 .75rem}p.muted,.muted{color:var(--muted)}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}input[type=email],input[type=password],input[type=text]{width:100%;padding:.6rem;font:inherit;border:1px solid var(--border);border-radius:6px;background:var(--bg);color:var(--fg)}
input:focus-visible,button:focus-visible,a:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
button{font:inherit;font-weight:600;padding:.6rem 1.1rem;border-radius:6px;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer;margin-top:1rem}
button.secondary{background:transparent;color:var(--accent)}button.danger{background:transparent;color:var(--danger);border-color:var(--danger);margin:0}
.error{border:1px solid var(--danger);color:var(--danger);padding:.75rem;border-radius:6px}.notice{border:1px solid var(--accent);padding:.75rem;border-radius:6px}
table{width:100%;border-collapse:collapse}th,td{text-align:left;padding:.4rem;border-bottom:1px solid var(--border)}code{font-size:.9em;word-break:break-all}
.actions{display:flex;gap:.75rem;flex-wrap:wrap}.inline{display:inline}svg{max-width:100%;height:auto}header.top{display:flex;justify-content:space-between;align-items:center}
`;

export function page(title: string, body: Html): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body.value}
</main>
</body>
</html>`;
}
