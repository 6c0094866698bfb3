import { describeCost, OPENAPI_PATH, PRICED_OPERATIONS, pricedRoute, REST_DOCS_PATH, restRoute, TOOLS } from '@adintel/tool-catalogue';
import { PROBLEM_CODES, problemTitle } from '../problems/problem';

export const DOCS_ASSETS = ['swagger-ui.css', 'swagger-ui-bundle.js', 'oauth2-redirect.html', 'oauth2-redirect.js', 'favicon-32x32.png'];

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/**
 * The reference page: Swagger UI (served from this origin, no external assets) over the OpenAPI document,
 * with a server-rendered list of operations for readers without JavaScript, and the problem types,
 * whose anchors the `type` of every problem document points at.
 */
export function docsPage(): string {
  const operations = TOOLS.map(
    (tool) =>
      `<tr><td><code>${escape(restRoute(tool))}</code></td><td><code>${escape(tool.name)}</code></td>` +
      `<td>${escape(tool.title)}</td><td>${escape(describeCost(tool.cost))}</td></tr>`,
  ).join('\n');
  // Priced operations beside the tools (media_file): MCP reads them with resources/read, not as a tool.
  const priced = PRICED_OPERATIONS.map(
    (operation) =>
      `<tr><td><code>${escape(pricedRoute(operation))}</code></td><td>resources/read</td>` +
      `<td>${escape(operation.title)}</td><td>${escape(describeCost(operation.cost))}</td></tr>`,
  ).join('\n');
  const problems = PROBLEM_CODES.map((code) => `<li id="problem-${code}"><code>${code}</code>: ${escape(problemTitle(code))}</li>`).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Ad intelligence API reference</title>
<link rel="icon" href="${REST_DOCS_PATH}/favicon-32x32.png">
<link rel="stylesheet" href="${REST_DOCS_PATH}/swagger-ui.css">
</head>
<body>
<main>
<div id="swagger-ui"></div>
<noscript>
<h1>Ad intelligence API</h1>
<p>The machine-readable description is <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>.</p>
<table><thead><tr><th>Resource</th><th>MCP tool</th><th>What</th><th>Cost</th></tr></thead><tbody>
${operations}
${priced}
</tbody></table>
</noscript>
<section aria-labelledby="problems" style="font-family:sans-serif;max-width:1460px;margin:2em auto;padding:0 20px">
<h2 id="problems">Problem types</h2>
<p>Errors are <code>application/problem+json</code> (RFC 9457); their <code>type</code> links here.</p>
<ul>
${problems}
</ul>
</section>
</main>
<script src="${REST_DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${REST_DOCS_PATH}/init.js"></script>
</body>
</html>`;
}

/** Started from a file, not inline, so the page runs under a strict Content-Security-Policy. */
export const DOCS_INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '${OPENAPI_PATH}',
    dom_id: '#swagger-ui',
    deepLinking: true,
    oauth2RedirectUrl: window.location.origin + '${REST_DOCS_PATH}/oauth2-redirect.html',
  });
  window.ui.initOAuth({ usePkceWithAuthorizationCodeGrant: true, scopes: 'mcp:read' });
});
`;

export const DOCS_CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; " +
  "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
