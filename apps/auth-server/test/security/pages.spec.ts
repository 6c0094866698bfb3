import { CookieJar, createOwner, form, hiddenCsrf } from '../e2e/support';
import { authServerFor } from './support';

/** Issue 23, low items: the provider's pages could be framed, and a bare cross-site POST signed an owner out. */
describe("the auth server's pages", () => {
  const server = authServerFor({});

  it('the provider pages (sign-out, errors) refuse to be framed', async () => {
    for (const path of ['/oauth2/logout', '/oauth2/auth?client_id=nobody']) {
      const res = await fetch(`${server().url}${path}`, { redirect: 'manual' });
      expect([path, res.headers.get('x-frame-options'), res.headers.get('content-security-policy')]).toEqual([path, 'DENY', "frame-ancestors 'none'"]);
    }
  });

  it('signing out of /account needs the form token: another site cannot sign the owner out', async () => {
    const owner = { email: `pages-${Date.now()}@example.com`, password: 'the owner password' };
    await createOwner(server().env, owner.email, owner.password);
    const jar = new CookieJar();
    const login = await (await jar.fetch(`${server().url}/account/login`)).text();
    expect((await jar.fetch(`${server().url}/account/login`, form({ ...owner, csrf: hiddenCsrf(login) }))).status).toBe(303);
    const forged = await jar.fetch(`${server().url}/account/logout`, form({}));
    expect([forged.status, forged.headers.get('location')]).toEqual([303, '/account']);
    expect(jar.header()).toContain('account_session=');
    // Still signed in: /account does not send the owner to the sign-in form (metering is not running here: 503).
    const account = await jar.fetch(`${server().url}/account`);
    expect(account.headers.get('location')).toBeNull();
  }, 60_000);
});
