import type { AppProcess } from '@adintel/testing';
import { authServerEnv, removeTestState, startAuthServer, type AuthServerEnv } from '../e2e/support';

/** An auth server process for the enclosing describe, with its Redis keys removed afterwards. */
export function authServerFor(extraEnv: Record<string, string>): () => AppProcess & { env: AuthServerEnv } {
  let app: AppProcess | undefined;
  let env: (AuthServerEnv & { PORT: string }) | undefined;
  beforeAll(async () => {
    env = await authServerEnv(extraEnv);
    app = await startAuthServer(env);
  }, 60_000);
  afterAll(async () => {
    await app?.stop();
    if (env) await removeTestState(env);
  });
  return () => {
    if (!app || !env) throw new Error('the auth server did not start');
    return Object.assign(app, { env });
  };
}

/** The value of one labelled counter in a Prometheus text page, 0 when absent. */
export async function counterValue(baseUrl: string, name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}
