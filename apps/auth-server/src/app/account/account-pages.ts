import { html, page, type Html } from '../web/html';
import { loginForm } from '../web/login-form';
import type { AccountOverview } from './account.service';
import { seriesFor, usageChart } from './usage-chart';

export const NOTICES: Record<string, string> = {
  attached: 'Agent attached: it now draws from your plan.',
  detached: 'Agent detached: it is back on its own trial balance.',
  revoked: 'Access revoked: that application can no longer call the service (its tokens stop working within seconds).',
};

export function accountLoginPage(csrf: string, options: { email?: string; error?: string } = {}): string {
  return page(
    'Sign in · Account',
    loginForm({
      action: '/account/login',
      csrf,
      context: html`<p>Sign in to manage your agents and see their usage.</p>`,
      ...options,
    }),
  );
}

export function accountUnavailablePage(ownerEmail: string, csrf: string, detail: string): string {
  return page(
    'Account',
    html`${header(ownerEmail, csrf)}<div class="card"><p class="error" role="alert">${detail}</p></div>`,
  );
}

function header(email: string, csrf: string): Html {
  return html`<header class="top"><h1>Your account</h1>
<form method="post" action="/account/logout" class="inline"><input type="hidden" name="csrf" value="${csrf}"><button type="submit" class="secondary">Sign out</button></form></header>
<p class="muted">Signed in as <strong>${email}</strong></p>`;
}

export function accountPage(
  overview: AccountOverview,
  csrf: string,
  messages: { notice?: string; error?: string; clientId?: string } = {},
): string {
  const { owner, account, usage } = overview;
  // The chart's series: attached agents, and the applications that spent the owner's pool for her (by client id).
  const names = new Map([
    ...overview.approved.map((c): [string, string] => [c.clientId, c.clientName ?? c.clientId]),
    ...account.agents.map((a): [string, string] => [a.agent_id, a.client_name ?? a.agent_id]),
  ]);
  const series = seriesFor(usage.rows, names);
  const totals = new Map<string, { charged: number; calls: number }>();
  for (const row of usage.rows) {
    const t = totals.get(row.agent_id) ?? { charged: 0, calls: 0 };
    totals.set(row.agent_id, { charged: t.charged + row.charged, calls: t.calls + row.calls });
  }
  const u = account.usage;
  return page(
    'Account',
    html`${header(owner.email, csrf)}
${messages.notice ? html`<p class="notice" role="status">${messages.notice}</p>` : ''}
${messages.error ? html`<p class="error" role="alert" id="attach-error">${messages.error}</p>` : ''}
<section class="card" aria-labelledby="plan-heading">
<h2 id="plan-heading">Plan</h2>
<p><strong>${account.plan}</strong>: ${u.used} of ${u.allowance} tokens used, ${u.remaining} remaining${u.period ? html` (period ${u.period.start.slice(0, 10)} to ${u.period.end.slice(0, 10)})` : ''}.</p>
</section>
<section class="card" aria-labelledby="agents-heading">
<h2 id="agents-heading">Attached agents</h2>
${
  account.agents.length === 0
    ? html`<p class="muted">No agent is attached yet.</p>`
    : html`<table><caption class="muted">Agents drawing from your plan</caption>
<thead><tr><th scope="col">Agent</th><th scope="col">Client id</th><th scope="col">Attached</th><th scope="col"><span class="muted">Action</span></th></tr></thead>
<tbody>${account.agents.map(
        (a) => html`<tr><td>${a.client_name ?? '(unnamed)'}</td><td><code>${a.agent_id}</code></td><td>${a.attached_at.slice(0, 10)}</td>
<td><form method="post" action="/account/agents/${encodeURIComponent(a.agent_id)}/detach" class="inline"><input type="hidden" name="csrf" value="${csrf}"><button type="submit" class="danger" aria-label="Detach ${a.client_name ?? a.agent_id}">Detach</button></form></td></tr>`,
      )}</tbody></table>`
}
</section>
<section class="card" aria-labelledby="approved-heading">
<h2 id="approved-heading">Applications you approved</h2>
${
  overview.approved.length === 0
    ? html`<p class="muted">You have not approved any application.</p>`
    : html`<table><caption class="muted">Applications that act on your plan after you signed in and approved them</caption>
<thead><tr><th scope="col">Application</th><th scope="col">Client id</th><th scope="col">Last used</th><th scope="col"><span class="muted">Action</span></th></tr></thead>
<tbody>${overview.approved.map(
        (c) => html`<tr><td>${c.clientName ?? '(unnamed)'}</td><td><code>${c.clientId}</code></td><td>${c.lastUsedAt.slice(0, 16).replace('T', ' ')} UTC</td>
<td><form method="post" action="/account/clients/${encodeURIComponent(c.grantId)}/revoke" class="inline"><input type="hidden" name="csrf" value="${csrf}"><button type="submit" class="danger" aria-label="Revoke ${c.clientName ?? c.clientId}">Revoke</button></form></td></tr>`,
      )}</tbody></table>`
}
</section>
<section class="card" aria-labelledby="attach-heading">
<h2 id="attach-heading">Attach an agent</h2>
<p class="muted">Prove you control the agent with the client id and client secret it received at registration.</p>
<form method="post" action="/account/agents" autocomplete="off">
<input type="hidden" name="csrf" value="${csrf}">
<label for="client_id">Client id</label>
<input id="client_id" name="client_id" type="text" required maxlength="128" value="${messages.clientId ?? ''}" spellcheck="false">
<label for="client_secret">Client secret</label>
<input id="client_secret" name="client_secret" type="password" required maxlength="512" autocomplete="off">
<button type="submit">Attach agent</button>
</form>
</section>
<section class="card" aria-labelledby="usage-heading">
<h2 id="usage-heading">Usage per agent and day</h2>
<p class="muted">Last ${usage.days.length} days, UTC.</p>
${usageChart(usage.rows, usage.days, series)}
${
  series.length
    ? html`<ul class="legend" aria-label="Legend">${series.map(
        (s) => html`<li><svg width="12" height="12" aria-hidden="true"><rect width="12" height="12" fill="${s.color}"/></svg> ${s.label}</li>`,
      )}</ul>`
    : ''
}
<table><caption class="muted">Totals for the period</caption>
<thead><tr><th scope="col">Agent</th><th scope="col">Calls</th><th scope="col">Tokens charged</th></tr></thead>
<tbody>${series.map((s) => html`<tr><td>${s.label}</td><td>${totals.get(s.agentId)?.calls ?? 0}</td><td>${totals.get(s.agentId)?.charged ?? 0}</td></tr>`)}</tbody>
</table>
</section>`,
  );
}
