import type { StaffSession } from '../../resources/staff/session.service.ts';
import { canManageStaff } from '../../resources/staff/staff-admin.service.ts';
import { canManageKeys } from '../../resources/staff/staff.service.ts';
import { html, type HtmlValue, type SafeHtml } from '../html.ts';

export interface PageContext {
  staff: StaffSession | null;
  /** The CSRF token every form of the page carries. */
  csrf: string;
}

/** The hidden field @fastify/csrf-protection reads from a form body. */
export const csrfField = (ctx: PageContext) => html`<input type="hidden" name="_csrf" value="${ctx.csrf}">`;

function nav(ctx: PageContext): SafeHtml | null {
  const staff = ctx.staff;
  if (!staff) return null;
  const managed = canManageKeys(staff.role);
  return html`<nav aria-label="Console">
      <ul>
        ${managed && html`<li><a href="/console/keys">API keys</a></li>`}
        ${managed && html`<li><a href="/console/webhooks">Webhooks</a></li>`}
        ${managed && html`<li><a href="/console/notifications">Notifications</a></li>`}
        ${managed && html`<li><a href="/console/audit">Audit log</a></li>`}
        ${canManageStaff(staff.role) && html`<li><a href="/console/staff">Staff</a></li>`}
        <li><a href="/console/password">Password</a></li>
      </ul>
    </nav>
    <div class="who">
      <span>${staff.name} (${staff.role.replace('_', ' ')}), ${staff.workspaceName}</span>
      <form class="inline" method="post" action="/console/sign-out">
        ${csrfField(ctx)}<button type="submit" class="secondary">Sign out</button>
      </form>
    </div>`;
}

/** Every page: one h1, landmarks, the one stylesheet and script the console serves itself. */
export function page(ctx: PageContext, title: string, body: HtmlValue): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${title} · Venue API console</title>
  <link rel="stylesheet" href="/console/assets/console.css">
  <script src="/console/assets/console.js" defer></script>
</head>
<body>
  <a class="skip" href="#main">Skip to content</a>
  <header>
    <p class="brand">Venue API console</p>
    ${nav(ctx)}
  </header>
  <main id="main">
    <h1>${title}</h1>
    ${body}
  </main>
</body>
</html>`;
}

/** A message above the page's content; `role=alert` for what went wrong, so a screen reader says it. */
export function notice(kind: 'ok' | 'bad' | 'info', text: HtmlValue): SafeHtml {
  return kind === 'bad'
    ? html`<div class="notice bad" role="alert">${text}</div>`
    : html`<div class="notice ${kind}" role="status">${text}</div>`;
}

/** The field's error, tied to it by id so the input can name it in aria-describedby. */
export function fieldError(id: string, message: string | undefined): SafeHtml | null {
  return message ? html`<p class="error" id="${id}-error">${message}</p>` : null;
}

export const describedBy = (id: string, message: string | undefined) =>
  message ? html` aria-describedby="${id}-error" aria-invalid="true"` : null;

export function when(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  return `${new Date(ms).toISOString().replace('T', ' ').slice(0, 19)} UTC`;
}
