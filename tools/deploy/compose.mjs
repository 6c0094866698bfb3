// docker/compose.yaml as the Compose engine sees it: YAML 1.1 merge keys resolved.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from './manifests.mjs';

export const COMPOSE_FILE = join(ROOT, 'docker/compose.yaml');

export const loadCompose = () => parse(readFileSync(COMPOSE_FILE, 'utf8'), { merge: true });
