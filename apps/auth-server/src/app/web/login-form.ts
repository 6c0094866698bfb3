import { html, type Html } from './html';

interface LoginFormOptions {
  readonly action: string;
  readonly csrf: string;
  /** Who asks the owner to sign in, e.g. "Claude wants to access your account". */
  readonly context?: Html;
  readonly email?: string;
  readonly error?: string;
}

/** The one sign-in form, used by the authorization flow and by the account page. */
export function loginForm(options: LoginFormOptions): Html {
  return html`<div class="card">
<h1>Sign in</h1>
${options.context ?? ''}
${options.error ? html`<p class="error" role="alert" id="login-error">${options.error}</p>` : ''}
<form method="post" action="${options.action}" autocomplete="on">
<input type="hidden" name="csrf" value="${options.csrf}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${options.email ?? ''}"${options.error ? html` aria-describedby="login-error"` : ''} autofocus>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024">
<button type="submit">Sign in</button>
</form>
<p class="muted">Accounts are created by the operator; there is no public sign-up.</p>
</div>`;
}
