// The public routing table, the one definition of what the public origin serves: the dev front door and the
// compose edge route with it, and the Kubernetes Ingress (k8s/base/routes) and HTTPRoute (k8s/components/gateway-api) are generated from it
// (tools/deploy/render-routes.mjs; tools/deploy tests that none of them drift).
// Matching is the Kubernetes `Prefix` / `PathPrefix` rule: a prefix matches whole path segments, and the longest
// matching prefix wins; anything unmatched (`/metrics`, `/healthz` included) is a 404 at the edge.
export const APP_PORTS = {
  'auth-server': 3001,
  'mcp-gateway': 3002,
  'query-api': 3003,
  metering: 3004,
};

export const ROUTES = [
  { prefix: '/oauth2', app: 'auth-server' },
  { prefix: '/.well-known/oauth-authorization-server', app: 'auth-server' },
  { prefix: '/.well-known/openid-configuration', app: 'auth-server' },
  { prefix: '/account', app: 'auth-server' },
  { prefix: '/mcp', app: 'mcp-gateway' },
  { prefix: '/api/v1', app: 'mcp-gateway' },
  { prefix: '/.well-known/oauth-protected-resource', app: 'mcp-gateway' },
  { prefix: '/llms.txt', app: 'mcp-gateway' },
];

/** The app that serves `path`, or undefined. A prefix matches whole segments: `/account` is not `/accounts`. */
export function appFor(path) {
  const matches = ROUTES.filter(({ prefix }) => matchesPrefix(path, prefix));
  matches.sort((a, b) => b.prefix.length - a.prefix.length);
  return matches[0]?.app;
}

function matchesPrefix(path, prefix) {
  if (!path.startsWith(prefix)) return false;
  const next = path.charAt(prefix.length);
  return next === '' || next === '/' || next === '?';
}
