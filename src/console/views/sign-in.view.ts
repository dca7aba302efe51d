import { html } from '../html.ts';
import { csrfField, notice, page, type PageContext } from './layout.ts';

export function signInPage(ctx: PageContext, state: { email?: string; error?: string; info?: string } = {}) {
  return page(
    ctx,
    'Sign in',
    html`${state.error && notice('bad', state.error)}${state.info && notice('info', state.info)}
    <form method="post" action="/console/sign-in">
      ${csrfField(ctx)}
      <div class="field">
        <label for="email">Email</label>
        <input type="email" id="email" name="email" autocomplete="username" required value="${state.email ?? ''}">
      </div>
      <div class="field">
        <label for="password">Password</label>
        <input type="password" id="password" name="password" autocomplete="current-password" required>
      </div>
      <button type="submit">Sign in</button>
    </form>
    <p class="hint">Staff of a workspace sign in here. An operator sets a password with
      <code>venue-api staff set-password</code>.</p>`,
  );
}

export function homePage(ctx: PageContext) {
  return page(
    ctx,
    'Developer settings',
    html`<p>You are signed in as ${ctx.staff?.email}. Your role, staff, does not manage API keys: an owner or a
      key manager of ${ctx.staff?.workspaceName} can give you that role.</p>
    <p><a href="/console/password">Change your password</a></p>`,
  );
}

export function errorPage(ctx: PageContext, title: string, message: string) {
  return page(ctx, title, html`${notice('bad', message)}<p><a href="/console">Back to the console</a></p>`);
}

export function passwordPage(ctx: PageContext, state: { errors?: Record<string, string> } = {}) {
  const e = state.errors ?? {};
  const field = (id: string, label: string, autocomplete: string) => html`<div class="field">
      <label for="${id}">${label}</label>
      <input type="password" id="${id}" name="${id}" autocomplete="${autocomplete}" required${
        e[id] ? html` aria-describedby="${id}-error" aria-invalid="true"` : null
      }>
      ${e[id] && html`<p class="error" id="${id}-error">${e[id]}</p>`}
    </div>`;
  return page(
    ctx,
    'Change password',
    html`${Object.keys(e).length > 0 && notice('bad', 'The password was not changed; see the fields below.')}
    <form method="post" action="/console/password">
      ${csrfField(ctx)}
      ${field('current_password', 'Current password', 'current-password')}
      ${field('new_password', 'New password (8 characters or more)', 'new-password')}
      ${field('confirm_password', 'New password again', 'new-password')}
      <button type="submit">Change password</button>
    </form>
    <p class="hint">Changing your password signs you out everywhere, on every server.</p>`,
  );
}
