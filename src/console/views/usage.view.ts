import type { KeyUsage, UsageHour } from '../../resources/keys/key-usage.service.ts';
import { html, type SafeHtml } from '../html.ts';

/**
 * A key's use over 7 days, drawn on the server as SVG (no script: the console's CSP allows
 * none inline) with the same figures as tables for screen readers. The dashed lines are the
 * thresholds the hourly unusual-activity check applied (DECISIONS "Unusual activity").
 */
const W = 720;
const H = 180;
const LEFT = 56;
const RIGHT = 8;
const TOP = 10;
const BOTTOM = 26;
const PLOT_W = W - LEFT - RIGHT;
const PLOT_H = H - TOP - BOTTOM;

const number = (n: number) => n.toLocaleString('en-US');
const hourLabel = (ms: number) => `${new Date(ms).toISOString().slice(0, 13).replace('T', ' ')}:00 UTC`;
const dayLabel = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const round = (n: number) => Math.round(n * 10) / 10;

/** The scale's top: the largest figure or threshold, never 0. */
function scaleTop(values: number[]): number {
  const top = Math.max(1, ...values);
  const step = 10 ** Math.floor(Math.log10(top));
  return Math.ceil((top * 1.05) / step) * step;
}

function frame(id: string, top: number, xTicks: SafeHtml[], body: SafeHtml[], title: string, desc: string): SafeHtml {
  const y = (v: number) => round(TOP + PLOT_H - (v / top) * PLOT_H);
  return html`<svg class="chart" viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-labelledby="${id}-title ${id}-desc" xmlns="http://www.w3.org/2000/svg">
    <title id="${id}-title">${title}</title>
    <desc id="${id}-desc">${desc}</desc>
    <line class="chart-axis" x1="${LEFT}" y1="${y(0)}" x2="${W - RIGHT}" y2="${y(0)}"/>
    <line class="chart-axis" x1="${LEFT}" y1="${TOP}" x2="${LEFT}" y2="${y(0)}"/>
    <text class="chart-label" x="${LEFT - 6}" y="${y(0)}" text-anchor="end" dominant-baseline="middle">0</text>
    <text class="chart-label" x="${LEFT - 6}" y="${y(top)}" text-anchor="end" dominant-baseline="middle">${number(top)}</text>
    ${xTicks}${body}
  </svg>`;
}

/** A step line through the thresholds, broken where there is none (no check, or exempt). */
function thresholdPath(points: { x0: number; x1: number; value: number | null }[], y: (v: number) => number): string {
  let d = '';
  let open = false;
  for (const p of points) {
    if (p.value === null) {
      open = false;
      continue;
    }
    d += `${open ? 'L' : 'M'}${round(p.x0)} ${y(p.value)} L${round(p.x1)} ${y(p.value)} `;
    open = true;
  }
  return d.trim();
}

function requestsChart(usage: KeyUsage): SafeHtml {
  const { hours } = usage;
  const top = scaleTop(hours.flatMap((h) => [h.requests, h.check?.requestThreshold ?? 0]));
  const y = (v: number) => round(TOP + PLOT_H - (v / top) * PLOT_H);
  const bw = PLOT_W / hours.length;
  const x = (i: number) => LEFT + i * bw;
  const bars = hours.map((h, i) =>
    h.requests === 0
      ? null
      : html`<rect class="${h.check?.verdict === 'requests' ? 'chart-bar chart-flagged' : 'chart-bar'}" x="${round(x(i))}" y="${y(h.requests)}" width="${round(Math.max(1, bw - 0.5))}" height="${round(y(0) - y(h.requests))}"><title>${hourLabel(h.hourStart)}: ${number(h.requests)} ${h.requests === 1 ? 'request' : 'requests'}</title></rect>`,
  );
  const limit = thresholdPath(
    hours.map((h, i) => ({ x0: x(i), x1: x(i + 1), value: h.check?.requestThreshold ?? null })),
    y,
  );
  const ticks = hours
    .map((h, i) => ({ h, i }))
    .filter(({ h }) => new Date(h.hourStart).getUTCHours() === 0)
    .map(
      ({ h, i }) =>
        html`<line class="chart-grid" x1="${round(x(i))}" y1="${TOP}" x2="${round(x(i))}" y2="${y(0)}"/><text class="chart-label" x="${round(x(i))}" y="${H - 8}" text-anchor="middle">${dayLabel(h.hourStart).slice(5)}</text>`,
    );
  const total = hours.reduce((n, h) => n + h.requests, 0);
  return frame(
    'usage-requests',
    top,
    ticks,
    [
      ...bars.filter((b): b is SafeHtml => b !== null),
      limit ? html`<path class="chart-threshold" d="${limit}"/>` : html``,
    ],
    'Requests an hour, last 7 days',
    `${number(total)} requests in 7 days; the dashed line is the most an hour may hold before the check pauses the key.`,
  );
}

function customersChart(usage: KeyUsage): SafeHtml {
  const { days } = usage;
  const top = scaleTop(days.flatMap((d) => [d.customersSent ?? 0, d.customerThreshold ?? 0]));
  const y = (v: number) => round(TOP + PLOT_H - (v / top) * PLOT_H);
  const bw = PLOT_W / days.length;
  const x = (i: number) => LEFT + i * bw;
  const bars = days.map((d, i) =>
    d.customersSent === null || d.customersSent === 0
      ? null
      : html`<rect class="chart-bar" x="${round(x(i) + bw * 0.15)}" y="${y(d.customersSent)}" width="${round(bw * 0.7)}" height="${round(y(0) - y(d.customersSent))}"><title>${dayLabel(d.dayStart)}: ${number(d.customersSent)} distinct customers</title></rect>`,
  );
  const limit = thresholdPath(
    days.map((d, i) => ({ x0: x(i), x1: x(i + 1), value: d.customerThreshold })),
    y,
  );
  const ticks = days.map(
    (d, i) =>
      html`<text class="chart-label" x="${round(x(i) + bw / 2)}" y="${H - 8}" text-anchor="middle">${dayLabel(d.dayStart).slice(5)}</text>`,
  );
  return frame(
    'usage-customers',
    top,
    ticks,
    [
      ...bars.filter((b): b is SafeHtml => b !== null),
      limit ? html`<path class="chart-threshold" d="${limit}"/>` : html``,
    ],
    'Distinct customers sent a day, last 7 days',
    'The most distinct customers the key was sent in 24 hours, as the hourly checks of each day counted them; the dashed line is half the workspace’s live customers, above which the check pauses the key.',
  );
}

function pausedFigure(hour: UsageHour): SafeHtml {
  const c = hour.check!;
  const span = `${hourLabel(hour.hourStart)} to ${hourLabel(hour.hourStart + 3_600_000)}`;
  return c.verdict === 'requests'
    ? html`<p class="notice bad" id="paused-figure"><strong>Paused by the unusual-activity check:</strong> ${number(c.requests)} requests from ${span}, above the hour’s threshold of ${number(c.requestThreshold ?? 0)}.</p>`
    : html`<p class="notice bad" id="paused-figure"><strong>Paused by the unusual-activity check:</strong> ${number(c.customersSent)} distinct customers in the 24 hours before ${hourLabel(hour.hourStart + 3_600_000)}, above the threshold of ${number(c.customerThreshold ?? 0)} (half the workspace’s live customers).</p>`;
}

const dash = (n: number | null) => (n === null ? '—' : number(n));

/** The key page's "Usage" section. */
export function usageSection(usage: KeyUsage): SafeHtml {
  if (!usage.watched) {
    return html`<h2 id="usage">Usage</h2>
    <p>Test keys are not counted hour by hour or checked for unusual activity; their use today is in the table below.</p>`;
  }
  const hourRows = usage.hours.filter((h) => h.requests > 0 || h.check);
  return html`<h2 id="usage">Usage</h2>
    ${usage.pausedBy && pausedFigure(usage.pausedBy)}
    <p class="hint">The hourly check pauses a live key that makes more than 5 times its hourly average and more than 1,000 requests in an hour, or is sent more than half the workspace’s live customers in 24 hours. A key’s first 24 hours are its first sync and are exempt, as is anything before a person resumed it.</p>
    <figure>${requestsChart(usage)}
      <figcaption>Requests an hour (bars) and the check’s threshold (dashed), UTC.</figcaption></figure>
    <details><summary>Requests an hour as a table</summary>
      <table><caption class="hint">Hours with requests or a check, oldest first; other hours had none.</caption>
        <thead><tr><th scope="col">Hour</th><th scope="col">Requests</th><th scope="col">Threshold</th><th scope="col">Check</th></tr></thead>
        <tbody>${hourRows.map(
          (h) =>
            html`<tr><td>${hourLabel(h.hourStart)}</td><td>${number(h.requests)}</td><td>${h.check ? (h.check.requestThreshold === null ? 'exempt' : number(h.check.requestThreshold)) : '—'}</td><td>${h.check ? (h.check.verdict ? `paused (${h.check.verdict})` : 'usual') : 'not judged'}</td></tr>`,
        )}</tbody></table>
    </details>
    <figure>${customersChart(usage)}
      <figcaption>Distinct customers sent a day (bars) and the check’s threshold (dashed), UTC days.</figcaption></figure>
    <details><summary>Distinct customers a day as a table</summary>
      <table>
        <thead><tr><th scope="col">Day</th><th scope="col">Distinct customers</th><th scope="col">Threshold</th></tr></thead>
        <tbody>${usage.days.map(
          (d) =>
            html`<tr><td>${dayLabel(d.dayStart)}</td><td>${dash(d.customersSent)}</td><td>${d.customersSent === null ? '—' : d.customerThreshold === null ? 'workspace under 100 live customers' : number(d.customerThreshold)}</td></tr>`,
        )}</tbody></table>
    </details>`;
}
