import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { WORKSPACE_ROOT } from '@adintel/testing';
import { CookieJar, form, hiddenCsrf } from '../e2e/support';
import { authServerFor } from './support';

/**
 * Issue 23, finding 6: `npm start` created a Pro demo owner whose password was printed in the README. It now runs
 * create-owner with --if-absent and a password of its own making, and prints it only when the owner was created.
 */
describe('the demo owner of npm start', () => {
  const server = authServerFor({});
  const createIfAbsent = async (password: string) => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(WORKSPACE_ROOT, 'dist/apps/auth-server/create-owner.js'), '--email=demo@example.com', '--plan=pro', '--if-absent'],
      { env: { ...process.env, ...server().env, OWNER_PASSWORD: password }, cwd: WORKSPACE_ROOT },
    );
    return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { created: boolean };
  };
  const signIn = async (password: string) => {
    const jar = new CookieJar();
    const page = await (await jar.fetch(`${server().url}/account/login`)).text();
    return (await jar.fetch(`${server().url}/account/login`, form({ email: 'demo@example.com', password, csrf: hiddenCsrf(page) }))).status;
  };

  it('is created once with the first password; a later run changes nothing', async () => {
    expect(await createIfAbsent('first generated password')).toMatchObject({ created: true });
    expect(await createIfAbsent('second generated password')).toMatchObject({ created: false });
    expect(await signIn('second generated password')).toBe(401);
    expect(await signIn('demo-owner-password')).toBe(401);
    expect(await signIn('first generated password')).toBe(303);
  }, 60_000);
});
