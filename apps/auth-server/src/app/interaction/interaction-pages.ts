import { html, page } from '../web/html';
import { loginForm } from '../web/login-form';
import type { InteractionView } from './interaction.service';

const SCOPE_TEXT: Record<string, string> = {
  'mcp:read': 'Read advertising analytics through the MCP tools, using your plan’s token balance',
  openid: 'Know your account id',
  offline_access: 'Stay connected when you are away (refresh tokens)',
};

const base = (uid: string) => `/oauth2/interaction/${encodeURIComponent(uid)}`;

export function loginPage(view: InteractionView, options: { email?: string; error?: string } = {}): string {
  return page(
    'Sign in',
    loginForm({
      action: `${base(view.uid)}/login`,
      csrf: view.csrf,
      context: html`<p><strong>${view.clientName}</strong> asks to use your account.</p>`,
      ...options,
    }),
  );
}

export function consentPage(view: InteractionView): string {
  const scopes = view.scopes.length ? view.scopes : ['mcp:read'];
  return page(
    'Allow access',
    html`<div class="card">
<h1>Allow access?</h1>
<p><strong>${view.clientName}</strong> <span class="muted">(<code>${view.clientId}</code>)</span> asks to:</p>
<ul>${scopes.map((s) => html`<li>${SCOPE_TEXT[s] ?? s}</li>`)}</ul>
<p>If you allow it, access is handed to <strong>${URL.parse(view.redirectUri)?.host ?? view.redirectUri}</strong> <span class="muted">(<code>${view.redirectUri}</code>)</span>. Allow only if that is the application you meant to use.</p>
<div class="actions">
<form method="post" action="${base(view.uid)}/confirm" class="inline"><input type="hidden" name="csrf" value="${view.csrf}"><button type="submit">Allow</button></form>
<form method="post" action="${base(view.uid)}/abort" class="inline"><input type="hidden" name="csrf" value="${view.csrf}"><button type="submit" class="secondary">Deny</button></form>
</div>
</div>`,
  );
}

export function interactionErrorPage(title: string, detail: string): string {
  return page(
    title,
    html`<div class="card"><h1>${title}</h1><p class="error" role="alert">${detail}</p>
<p class="muted">Go back to the application that sent you here and start again.</p></div>`,
  );
}
