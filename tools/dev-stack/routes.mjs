// The public routing table: one origin in front of the apps, exactly as the Kubernetes ingress routes.
// Longest matching prefix wins; anything unmatched is a 404 at the edge.
export const APP_PORTS = {
  'auth-server': 3001,
  'mcp-gateway': 3002,
  'query-api': 3003,
  metering: 3004,
};

export const ROUTES = [
  { prefix: '/oauth2/', app: 'auth-server' },
  { prefix: '/.well-known/oauth-authorization-server', app: 'auth-server' },
  { prefix: '/.well-known/openid-configuration', app: 'auth-server' },
  { prefix: '/account', app: 'auth-server' },
  { prefix: '/mcp', app: 'mcp-gateway' },
  { prefix: '/api/v1/', app: 'mcp-gateway' },
  { prefix: '/.well-known/oauth-protected-resource', app: 'mcp-gateway' },
];

/** The app that serves `path`, or undefined. A prefix matches whole segments: `/account` is not `/accounts`. */
export function appFor(path) {
  const matches = ROUTES.filter(({ prefix }) => matchesPrefix(path, prefix));
  matches.sort((a, b) => b.prefix.length - a.prefix.length);
  return matches[0]?.app;
}

function matchesPrefix(path, prefix) {
  if (!path.startsWith(prefix)) return false;
  if (prefix.endsWith('/')) return true;
  const next = path.charAt(prefix.length);
  return next === '' || next === '/' || next === '?';
}
