#!/usr/bin/env node
// The front door as a standalone edge (the compose `edge` service runs it from the image):
// routes.mjs decides, every app is reached at http://<app>:<port> on the compose network.
// PORT (default 8080) is where it listens; UPSTREAM_<APP> (e.g. UPSTREAM_MCP_GATEWAY=http://10.0.0.5:3002) overrides one.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { APP_PORTS } from './routes.mjs';
import { createFrontDoor } from './front-door.mjs';

/** Base URL of every app, by app name. */
export function upstreamsFrom(env) {
  return Object.fromEntries(
    Object.entries(APP_PORTS).map(([app, port]) => [app, env[`UPSTREAM_${app.toUpperCase().replaceAll('-', '_')}`] ?? `http://${app}:${port}`]),
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const port = Number(process.env.PORT ?? 8080);
  const edge = createFrontDoor(upstreamsFrom(process.env)).listen(port, process.env.HOST ?? '0.0.0.0', () => {
    console.log(JSON.stringify({ level: 'info', service: 'edge', port, msg: 'listening' }));
  });
  process.once('SIGTERM', () => edge.close(() => process.exit(0)));
}
