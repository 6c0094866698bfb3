#!/usr/bin/env node
// Writes k8s/base/routes/ingress.yaml and k8s/components/gateway-api/httproute.yaml from the one route table (tools/dev-stack/routes.mjs).
//   node tools/deploy/render-routes.mjs          rewrite the files
//   node tools/deploy/render-routes.mjs --check  exit 1 when the committed files differ (the tests do the same)
// Both APIs match `Prefix`/`PathPrefix` by whole path segments with the longest prefix winning: the route
// table's own rule, so the generated objects route every path exactly like the front door.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { APP_PORTS, ROUTES } from '../dev-stack/routes.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
export const ROUTE_FILES = {
  ingress: join(root, 'k8s/base/routes/ingress.yaml'),
  httpRoute: join(root, 'k8s/components/gateway-api/httproute.yaml'),
};
const HEADER = '# Generated from tools/dev-stack/routes.mjs by tools/deploy/render-routes.mjs: edit the route table, not this file.\n';

export function ingressFor(routes = ROUTES) {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: 'adintel' },
    spec: {
      rules: [
        {
          http: {
            paths: routes.map(({ prefix, app }) => ({
              path: prefix,
              pathType: 'Prefix',
              backend: { service: { name: app, port: { name: 'http' } } },
            })),
          },
        },
      ],
    },
  };
}

export function httpRouteFor(routes = ROUTES) {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name: 'adintel' },
    spec: {
      // The platform's Gateway; the production overlay names the real one.
      parentRefs: [{ name: 'adintel-edge' }],
      rules: routes.map(({ prefix, app }) => ({
        matches: [{ path: { type: 'PathPrefix', value: prefix } }],
        backendRefs: [{ name: app, port: APP_PORTS[app] }],
      })),
    },
  };
}

export const renderedRouteFiles = () => ({
  ingress: HEADER + stringify(ingressFor()),
  httpRoute: HEADER + stringify(httpRouteFor()),
});

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const [kind, text] of Object.entries(renderedRouteFiles())) {
    const file = ROUTE_FILES[kind];
    if (check) {
      const current = (() => { try { return readFileSync(file, 'utf8'); } catch { return ''; } })();
      if (current !== text) {
        stale++;
        console.error(`${file} is stale: run node tools/deploy/render-routes.mjs`);
      }
    } else {
      writeFileSync(file, text);
      console.log(`wrote ${file}`);
    }
  }
  process.exitCode = stale ? 1 : 0;
}
