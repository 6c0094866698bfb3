import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { MeteringMessages } from '@adintel/contracts';
import { startApp, type AppProcess } from '@adintel/testing';
import { ServiceClient } from '@adintel/transport';
import { authServerEnv, CONTRACT_REGISTRATION, createOwner, removeTestState, pkcePair, register, startAuthServer, TEST_REDIS_URL } from './support';

jest.setTimeout(120_000);

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const browserTest = existsSync(CHROMIUM) ? it : it.skip;
if (!existsSync(CHROMIUM)) {
  process.stdout.write(`SKIPPED the headless browser test: ${CHROMIUM} is missing (Debian: apt-get install -y chromium)\n`);
}

describe('owner pages in headless Chromium (auth-server + metering, real Redis)', () => {
  let env: Awaited<ReturnType<typeof authServerEnv>>;
  let auth: AppProcess | undefined;
  let metering: AppProcess | undefined;
  let meteringClient: ServiceClient | undefined;
  let browser: Browser | undefined;

  afterAll(async () => {
    await browser?.close();
    await meteringClient?.close();
    await auth?.stop();
    await metering?.stop();
    if (env) await removeTestState(env);
  });

  browserTest('signs an owner in (authorization flow and account page), attaches an agent, shows its usage, detaches it', async () => {
    env = await authServerEnv();
    metering = await startApp({ name: 'metering', env: { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: `${env.REDIS_KEY_PREFIX}metering:`, LOG_LEVEL: 'warn' } });
    auth = await startAuthServer(env);
    const base = env.PUBLIC_BASE_URL;
    const email = `browser-${Date.now()}@example.com`;
    const password = 'browser test password';
    expect(await createOwner(env, email, password)).toMatchObject({ email, created: true, metering: 'updated' });

    const { body: agent } = await register(base, { ...CONTRACT_REGISTRATION, client_name: 'Scout agent' });
    const agentId = String(agent['client_id']);
    const agentSecret = String(agent['client_secret']);

    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const page = await browser.newPage();

    // 1. The authorization-code flow's login and consent pages, as a stock MCP client would open them.
    const { body: app } = await register(base, {
      client_name: 'Browser MCP client',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      redirect_uris: ['http://127.0.0.1:8977/callback'],
      scope: 'mcp:read',
    });
    await page.route('http://127.0.0.1:8977/**', (route) => route.fulfill({ status: 200, contentType: 'text/plain', body: 'signed in' }));
    const { challenge } = pkcePair();
    const authorize = new URL(`${base}/oauth2/auth`);
    authorize.search = new URLSearchParams({
      client_id: String(app['client_id']),
      response_type: 'code',
      redirect_uri: 'http://127.0.0.1:8977/callback',
      scope: 'mcp:read',
      state: 'browser',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: `${base}/mcp`,
    }).toString();
    await page.goto(authorize.href);
    await expect(page.getByRole('heading', { name: 'Sign in' }).isVisible()).resolves.toBe(true);
    expect(await page.textContent('main')).toContain('Browser MCP client');
    await signIn(page, email, password);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((url) => url.origin === 'http://127.0.0.1:8977');
    const callback = new URL(page.url());
    expect(callback.searchParams.get('code')).toEqual(expect.any(String));
    expect(callback.searchParams.get('state')).toBe('browser');

    // 2. The account page: sign in with the same form, a wrong password first.
    await page.goto(`${base}/account`);
    expect(new URL(page.url()).pathname).toBe('/account/login');
    await signIn(page, email, 'not the password');
    expect(await page.getByRole('alert').textContent()).toContain('Wrong email or password');
    await signIn(page, email, password);
    await page.waitForURL(`${base}/account`);
    expect(await page.getByRole('heading', { name: 'Your account' }).isVisible()).toBe(true);
    expect(await page.textContent('main')).toContain('No agent is attached yet');

    // a wrong secret proves nothing
    await attach(page, agentId, `${agentSecret}x`);
    expect(await page.getByRole('alert').textContent()).toContain('do not match');

    await attach(page, agentId, agentSecret);
    await page.waitForURL(`${base}/account?notice=attached`);
    expect(await page.getByRole('status').textContent()).toContain('Agent attached');
    const agentsTable = page.locator('section[aria-labelledby="agents-heading"] table');
    expect(await agentsTable.textContent()).toContain(agentId);
    expect(await agentsTable.textContent()).toContain('Scout agent');

    // 3. Usage: the attached agent spends from the owner's pool; the chart shows it.
    meteringClient = new ServiceClient({ service: 'metering', url: TEST_REDIS_URL, timeoutMs: 5_000 });
    const requestId = `browser-${Date.now()}`;
    const reservation = await meteringClient.send(MeteringMessages.reserve, { request_id: requestId, caller_id: agentId, tool: 'search_ads', amount: 20 });
    expect(reservation.pool).toBe('owner');
    await meteringClient.send(MeteringMessages.settle, { request_id: requestId, caller_id: agentId, charged: 12 });
    await page.reload();
    const chart = page.locator('svg[role="img"]');
    expect(await chart.locator('rect').count()).toBeGreaterThan(0);
    expect(await chart.locator('rect title').first().textContent()).toMatch(/Scout agent: 12 tokens/);
    expect(await page.textContent('main')).toMatch(/12 of 40000 tokens used/);

    const screenshot = join(mkdtempSync(join(tmpdir(), 'auth-account-')), 'account.png');
    await page.screenshot({ path: screenshot, fullPage: true });
    const size = statSync(screenshot).size;
    process.stdout.write(`account page screenshot: ${screenshot} (${size} bytes)\n`);
    expect(size).toBeGreaterThan(20_000);

    // 4. Detach: the agent leaves the owner's plan.
    await page.getByRole('button', { name: 'Detach Scout agent' }).click();
    await page.waitForURL(`${base}/account?notice=detached`);
    expect(await page.textContent('main')).toContain('No agent is attached yet');

    // 5. Sign out ends the account session.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${base}/account/login`);
    await page.goto(`${base}/account`);
    expect(new URL(page.url()).pathname).toBe('/account/login');
  });
});

async function signIn(page: Page, email: string, password: string) {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Sign in' }).click()]);
}

async function attach(page: Page, clientId: string, clientSecret: string) {
  await page.getByLabel('Client id').fill(clientId);
  await page.getByLabel('Client secret').fill(clientSecret);
  await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Attach agent' }).click()]);
}
