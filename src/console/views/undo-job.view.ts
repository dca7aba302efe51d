import type { AuditActor } from '../../resources/audit/audit.model.ts';
import { isOpen, type UndoJobView } from '../../resources/changes/undo-job.service.ts';
import type { KeyRecord } from '../../resources/keys/key.repo.ts';
import { html } from '../html.ts';
import { notice, when } from './layout.ts';
import { skippedTable } from './undo.view.ts';

const n = (v: number) => v.toLocaleString('en-US');

function askedBy(auditActor: string): string {
  const by = JSON.parse(auditActor) as AuditActor;
  return by.kind === 'staff' ? by.email : by.name;
}

function skipsPager(key: KeyRecord, view: UndoJobView) {
  if (view.pages <= 1) return null;
  const at = (p: number) => `/console/keys/${key.id}?skips=${p}#undo`;
  return html`<nav class="pager" aria-label="Skipped changes pages">
      ${view.page > 1 && html`<a href="${at(view.page - 1)}">Earlier skipped</a>`}
      <span>Page ${view.page} of ${view.pages}</span>
      ${view.page < view.pages && html`<a href="${at(view.page + 1)}">More skipped</a>`}
    </nav>`;
}

/**
 * The key's latest undo on its page (docs/console.md "Undo"): while it runs, how far it got
 * and a link to look again (no script and no timed refresh: the CSP stays strict and nobody
 * is moved off what they read; the link's query differs each time, so following it reloads
 * rather than scrolling to #undo); once it ends, what it came to and what it skipped.
 */
export function undoJobSection(key: KeyRecord, view: UndoJobView | null, now: number) {
  const undoLink = html`<p><a href="/console/keys/${key.id}/undo">Undo this key's changes</a></p>`;
  if (!view) return html`<h2 id="undo">Undo</h2>${undoLink}`;
  const { job } = view;
  const looked = job.reverted + job.skipped;
  const counts = `${n(looked)} of ${n(job.total)} change(s) looked at: ${n(job.reverted)} reverted, ${n(job.skipped)} left as they were.`;
  const asked = `Asked for by ${askedBy(job.audit_actor)} at ${when(job.created_at)}.`;
  const progress = html`<p><label for="undo-progress">Undo progress</label>
      <progress id="undo-progress" max="${Math.max(1, job.total)}" value="${looked}">${n(looked)} of ${n(job.total)}</progress></p>`;
  if (isOpen(job)) {
    return html`<h2 id="undo">Undo</h2>
      ${notice(
        'info',
        job.status === 'queued'
          ? `Undo queued: waiting for a server process to take it up. ${asked}`
          : `Undo running: ${counts} ${asked}`,
      )}
      ${progress}
      <p><a href="/console/keys/${key.id}?progress=${now}#undo">Refresh progress</a></p>`;
  }
  const ended =
    job.status === 'done'
      ? notice(
          'ok',
          `Undo finished at ${when(job.finished_at)}: ${counts} The undo is in the key's change log. ${asked}`,
        )
      : notice(
          'bad',
          `The undo stopped at ${when(job.finished_at)}: ${job.error ?? 'unknown error'}. ${counts} What it reverted stays reverted; undo again to go on (a change already looked at is not undone twice). ${asked}`,
        );
  return html`<h2 id="undo">Undo</h2>
    ${ended}
    <h3>Skipped (${n(job.skip_rows)})</h3>
    ${skippedTable(view.skipped)}
    ${skipsPager(key, view)}
    ${undoLink}`;
}
