// Builds every view under src/views/<name>/ (main.ts + style.css) into ONE self-contained HTML file,
// dist/libs/mcp-views/<name>.html: the script bundled by webpack (ext-apps and its dependencies included),
// script and style inlined, and a Content-Security-Policy that allows exactly those two by hash and nothing
// else (no network, no external assets), so the view works in a host's sandboxed frame as it is.
const { createHash } = require('node:crypto');
const { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const webpack = require('webpack');

const root = join(__dirname, 'src', 'views');
const outDir = join(__dirname, '..', '..', 'dist', 'libs', 'mcp-views');
const views = readdirSync(root, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== 'shared')
  .map((entry) => entry.name);

const sha256 = (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
const escapeHtml = (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');

function bundle(bundleDir) {
  const config = {
    mode: 'production',
    target: 'web',
    devtool: false,
    entry: Object.fromEntries(views.map((view) => [view, join(root, view, 'main.ts')])),
    // One file per view: dynamic imports inside dependencies are bundled in place, never fetched as chunks.
    output: { path: bundleDir, filename: '[name].js', iife: true, publicPath: '', asyncChunks: false },
    resolve: { extensions: ['.ts', '.js'] },
    module: {
      parser: { javascript: { dynamicImportMode: 'eager' } },
      rules: [{ test: /\.ts$/, loader: 'ts-loader', options: { transpileOnly: true, configFile: join(__dirname, 'tsconfig.views.json') } }],
    },
    performance: { hints: false },
  };
  return new Promise((resolve, reject) =>
    webpack(config, (error, stats) => {
      if (error) return reject(error);
      if (stats.hasErrors()) return reject(new Error(stats.toString({ all: false, errors: true })));
      resolve();
    }),
  );
}

function page(view, script, style) {
  // A script element ends at the first "</script" whatever the JavaScript means; "<\/" is the same string to JS.
  const safeScript = script.replace(/<\/(script)/gi, '<\\/$1');
  const csp = [
    "default-src 'none'",
    `script-src ${sha256(safeScript)}`,
    `style-src ${sha256(style)}`,
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<title>${escapeHtml(view)}</title>
<style>${style}</style>
</head>
<body>
<main id="view" aria-live="polite"><p class="muted">Waiting for the tool result…</p></main>
<script>${safeScript}</script>
</body>
</html>
`;
}

async function main() {
  const bundleDir = mkdtempSync(join(tmpdir(), 'mcp-views-'));
  try {
    await bundle(bundleDir);
    mkdirSync(outDir, { recursive: true });
    const shared = readFileSync(join(root, 'shared', 'base.css'), 'utf8');
    for (const view of views) {
      const script = readFileSync(join(bundleDir, `${view}.js`), 'utf8');
      const style = `${shared}\n${readFileSync(join(root, view, 'style.css'), 'utf8')}`;
      const html = page(view, script, style);
      writeFileSync(join(outDir, `${view}.html`), html);
      process.stdout.write(`${JSON.stringify({ view, file: join('dist/libs/mcp-views', `${view}.html`), bytes: Buffer.byteLength(html) })}\n`);
    }
  } finally {
    rmSync(bundleDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
