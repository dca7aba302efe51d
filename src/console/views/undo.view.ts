import { describeSkip } from '../../resources/changes/skip-reasons.ts';
import type { UndoPreviewPage } from '../../resources/changes/undo-preview.service.ts';
import { isOpen, type UndoJob } from '../../resources/changes/undo-job.service.ts';
import type { Skip } from '../../resources/changes/undo-plan.model.ts';
import type { RevertLine } from '../../resources/changes/undo.service.ts';
import type { KeyRecord } from '../../resources/keys/key.repo.ts';
import { html } from '../html.ts';
import { csrfField, notice, page, type PageContext } from './layout.ts';

/** A field's value as JSON, so text, numbers, null and lists read unambiguously. */
function shown(value: unknown) {
  return html`<code>${value === undefined ? '—' : JSON.stringify(value)}</code>`;
}

function tables(key: KeyRecord, report: { reverts: RevertLine[]; skipped: Skip[] }, verb: string) {
  return html`<h2>${verb} (${report.reverts.length})</h2>
    ${
      report.reverts.length === 0
        ? html`<p>Nothing.</p>`
        : html`<table>
      <thead><tr><th scope="col">Customer</th><th scope="col">Change</th><th scope="col">Action</th><th scope="col">Field</th>
        <th scope="col">The key wrote</th><th scope="col">There now</th><th scope="col">Undo puts back</th></tr></thead>
      <tbody>${report.reverts.flatMap((r) =>
        r.values.map(
          (v, i) =>
            html`<tr>${
              i === 0
                ? html`<td rowspan="${r.values.length}"><a href="/console/keys/${key.id}/customers/${r.customer}"><code>${r.customer}</code></a></td><td rowspan="${r.values.length}"><code>${r.change}</code></td><td rowspan="${r.values.length}">${r.action}</td>`
                : null
            }<th scope="row">${v.field}</th><td>${shown(v.wrote)}</td><td>${shown(v.now)}</td><td>${shown(v.back)}</td></tr>`,
        ),
      )}</tbody></table>`
    }
    <h2>Skipped (${report.skipped.length})</h2>
    ${skippedTable(report.skipped)}`;
}

/** What an undo left alone, and why (the preview and a finished undo job). */
export function skippedTable(skipped: Skip[]) {
  return skipped.length === 0
    ? html`<p>Nothing.</p>`
    : html`<table>
      <thead><tr><th scope="col">Customer</th><th scope="col">Change</th><th scope="col">Action</th><th scope="col">Field</th><th scope="col">Why</th></tr></thead>
      <tbody>${skipped.map(
        (s) =>
          html`<tr><td><code>${s.customer}</code></td><td><code>${s.change}</code></td><td>${s.action}</td><td>${s.field ?? 'the customer'}</td><td>${describeSkip(s)}</td></tr>`,
      )}</tbody></table>`;
}

function previewPager(key: KeyRecord, preview: UndoPreviewPage) {
  if (preview.pages <= 1) return null;
  const at = (n: number) => `/console/keys/${key.id}/undo?page=${n}`;
  return html`<nav class="pager" aria-label="Undo preview pages">
      ${preview.page > 1 && html`<a href="${at(preview.page - 1)}">Newer changes</a>`}
      <span>Page ${preview.page} of ${preview.pages}</span>
      ${preview.page < preview.pages && html`<a href="${at(preview.page + 1)}">Older changes</a>`}
    </nav>`;
}

export function undoPreviewPage(
  ctx: PageContext,
  key: KeyRecord,
  preview: UndoPreviewPage,
  state: { job?: UndoJob | undefined; error?: string } = {},
) {
  const nothing = preview.total === 0;
  const open = state.job !== undefined && isOpen(state.job);
  const count = preview.total.toLocaleString('en-US');
  return page(
    ctx,
    `Undo the changes of “${key.name}”`,
    html`${state.error && notice('bad', state.error)}
    ${
      open &&
      !state.error &&
      notice(
        'info',
        html`An undo of this key's changes is running. <a href="/console/keys/${key.id}#undo">See its progress</a>.`,
      )
    }
    <p>The preview below is what an undo would do now, newest change first, a page at a time. An undo never
      reverts an edit made after the key's change; those are skipped, with the reason.</p>
    ${
      nothing
        ? html`<p>This key has no changes left to undo.</p>`
        : html`<p id="undo-totals">${count} change(s) not yet undone. Page ${preview.page} of ${preview.pages}: its
          ${preview.changes} change(s) would revert ${preview.reverts.length} and skip ${preview.skipped.length} (a field or a customer each).</p>
        ${tables(key, preview, 'Would revert')}
        ${previewPager(key, preview)}`
    }
    ${
      !nothing &&
      !open &&
      html`<form method="post" action="/console/keys/${key.id}/undo">
        ${csrfField(ctx)}
        <p>Confirming undoes all ${count} change(s), every page, not only this one. It runs in the background; the
          key's page shows its progress and, once it ends, what it reverted and skipped.</p>
        <p class="actions"><button type="submit">Confirm undo</button> <a href="/console/keys/${key.id}">Cancel</a></p>
      </form>`
    }
    <p><a href="/console/keys/${key.id}">Back to the key's page</a></p>`,
  );
}
