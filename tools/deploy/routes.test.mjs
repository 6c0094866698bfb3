// One route table (tools/dev-stack/routes.mjs) behind every public origin: the dev front door, the compose edge
// and Kubernetes (Ingress and HTTPRoute, as rendered by every overlay) send every path to the same app.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { APP_PORTS, ROUTES, appFor } from '../dev-stack/routes.mjs';
import { upstreamsFrom } from '../dev-stack/edge.mjs';
import { loadCompose } from './compose.mjs';
import { byKind, kubectlMissing, OVERLAYS, render, ROOT } from './manifests.mjs';
import { renderedRouteFiles, ROUTE_FILES } from './render-routes.mjs';

const skip = kubectlMissing() ?? false;

/** Paths on and around every route, plus the ones that must stay private. */
const SAMPLE_PATHS = [
  ...ROUTES.flatMap(({ prefix }) => [prefix, `${prefix}/x`, `${prefix}x`, `${prefix}/a/b?c=1`]),
  '/', '/metrics', '/healthz', '/readyz', '/api/v2/ads', '/accounts', '/mcpx', '/oauth', '/api',
];

/** Kubernetes Prefix/PathPrefix matching: whole segments, longest prefix wins. */
function k8sMatch(routes, path) {
  const pathname = path.split('?')[0];
  const segments = (p) => p.split('/').filter(Boolean);
  const matching = routes.filter(({ prefix }) => {
    const want = segments(prefix);
    return want.every((segment, i) => segments(pathname)[i] === segment);
  });
  matching.sort((a, b) => b.prefix.length - a.prefix.length);
  return matching[0]?.app;
}

test('private paths are not routed: /metrics and the probes stay off the public origin', () => {
  for (const path of ['/metrics', '/healthz', '/readyz', '/']) assert.equal(appFor(path), undefined, path);
});

test('the committed Kubernetes routes are generated from the route table', () => {
  const rendered = renderedRouteFiles();
  for (const [kind, file] of Object.entries(ROUTE_FILES)) {
    assert.equal(readFileSync(file, 'utf8'), rendered[kind], `${file} is stale: run node tools/deploy/render-routes.mjs`);
  }
});

for (const overlay of OVERLAYS) {
  test(`${overlay}: Ingress and HTTPRoute send every path where the front door does`, { skip }, () => {
    const objects = render(`k8s/overlays/${overlay}`);
    const services = new Map(byKind(objects, 'Service').map((s) => [s.metadata.name, s]));
    const [ingress] = byKind(objects, 'Ingress');
    assert.equal(ingress.spec.rules.length, 1);
    const ingressRoutes = ingress.spec.rules[0].http.paths.map((p) => {
      assert.equal(p.pathType, 'Prefix');
      assert.ok(services.get(p.backend.service.name)?.spec.ports.some((port) => port.name === p.backend.service.port.name), `${p.path}: backend Service and port exist`);
      return { prefix: p.path, app: p.backend.service.name };
    });
    const tables = { Ingress: ingressRoutes };
    const [httpRoute] = byKind(objects, 'HTTPRoute');
    if (overlay === 'production') assert.ok(httpRoute, 'production offers an HTTPRoute');
    if (httpRoute) {
      tables.HTTPRoute = httpRoute.spec.rules.map((rule) => {
        assert.equal(rule.matches.length, 1);
        assert.equal(rule.matches[0].path.type, 'PathPrefix');
        const [backend] = rule.backendRefs;
        assert.ok(services.get(backend.name)?.spec.ports.some((port) => port.port === backend.port), `${backend.name}:${backend.port} exists`);
        return { prefix: rule.matches[0].path.value, app: backend.name };
      });
    }
    for (const [kind, routes] of Object.entries(tables)) {
      for (const path of SAMPLE_PATHS) assert.equal(k8sMatch(routes, path), appFor(path), `${kind} ${overlay}: ${path}`);
    }
  });
}

test('the compose edge runs the front door with an upstream for every app the route table names', () => {
  const compose = loadCompose();
  const edge = compose.services.edge;
  assert.deepEqual(edge.command, ['edge/edge.mjs']);
  const bundleScript = readFileSync(join(ROOT, 'tools/deploy/build-bundle.mjs'), 'utf8');
  for (const file of ['routes.mjs', 'front-door.mjs', 'edge.mjs']) assert.ok(bundleScript.includes(`'${file}'`), `the image carries ${file}`);
  const upstreams = upstreamsFrom({});
  for (const app of new Set(ROUTES.map((r) => r.app))) {
    const url = new URL(upstreams[app]);
    const service = compose.services[url.hostname];
    assert.ok(service, `compose service ${url.hostname}`);
    assert.equal(service.environment.PORT, url.port, `${app} listens where the edge sends it`);
    assert.equal(Number(url.port), APP_PORTS[app]);
  }
  assert.deepEqual(Object.keys(compose.services).filter((name) => compose.services[name].ports), ['elasticsearch', 'edge']);
});
