/**
 * The console's only stylesheet and script, served by the console itself (no CDN: it works
 * offline, and the Content-Security-Policy allows scripts and styles from 'self' only). Kept
 * as modules so the esbuild bundle carries them and no file has to be found at run time.
 */
export const CONSOLE_CSS = `
:root { --ink: #1b1f24; --muted: #4a5560; --line: #c9d1d9; --accent: #0b5cad; --bad: #a4161a; --ok: #1d6b2f; --warn: #7a4b00; --bg: #ffffff; --panel: #f5f7f9; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible, summary:focus-visible {
  outline: 3px solid #f0a500; outline-offset: 2px;
}
.skip { position: absolute; left: -9999px; top: 0; background: var(--bg); padding: .5rem 1rem; }
.skip:focus { left: 1rem; }
header { display: flex; flex-wrap: wrap; align-items: center; gap: 1rem 2rem; padding: .75rem 1.5rem; border-bottom: 1px solid var(--line); background: var(--panel); }
header .brand { font-weight: 700; margin: 0; }
header nav ul { display: flex; gap: 1.25rem; list-style: none; margin: 0; padding: 0; }
header .who { margin-left: auto; display: flex; gap: 1rem; align-items: center; color: var(--muted); }
main { max-width: 72rem; margin: 0 auto; padding: 1.5rem; }
h1 { font-size: 1.75rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.25rem; margin: 2rem 0 .75rem; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0 1rem; }
th, td { text-align: left; vertical-align: top; padding: .5rem .6rem; border-bottom: 1px solid var(--line); }
th { background: var(--panel); font-weight: 600; }
td code, dd code { word-break: break-all; }
button, .button { font: inherit; padding: .45rem 1rem; border: 1px solid var(--accent); border-radius: 4px; background: var(--accent); color: #fff; cursor: pointer; text-decoration: none; display: inline-block; }
button.secondary, .button.secondary { background: var(--bg); color: var(--accent); }
button.danger { background: var(--bad); border-color: var(--bad); }
.link-button { background: none; border: 0; color: var(--accent); text-decoration: underline; padding: 0; }
form.inline { display: inline; }
fieldset { border: 1px solid var(--line); border-radius: 4px; margin: 0 0 1rem; padding: .75rem 1rem; }
legend { font-weight: 600; padding: 0 .25rem; }
.field { margin: 0 0 1rem; }
.field label { display: block; font-weight: 600; margin-bottom: .25rem; }
.choice { display: block; margin: .25rem 0; }
.choice label { font-weight: normal; display: inline; }
input[type=text], input[type=email], input[type=password], input[type=number], input[type=datetime-local], textarea { font: inherit; padding: .4rem .5rem; border: 1px solid #6b7781; border-radius: 4px; width: 100%; max-width: 32rem; }
input[readonly] { background: var(--panel); }
.hint { color: var(--muted); font-size: .9rem; margin: .2rem 0; }
.error { color: var(--bad); font-weight: 600; margin: .25rem 0; }
.notice { border-left: 4px solid var(--accent); background: var(--panel); padding: .75rem 1rem; margin: 1rem 0; }
.notice.bad { border-color: var(--bad); }
.notice.ok { border-color: var(--ok); }
.status-active { color: var(--ok); font-weight: 600; }
.status-paused, .status-expired { color: var(--warn); font-weight: 600; }
.status-revoked { color: var(--bad); font-weight: 600; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .35rem 1.5rem; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; }
.actions { display: flex; flex-wrap: wrap; gap: .75rem; margin: 1rem 0; }
.pager { display: flex; gap: 1rem; }
.tabs { display: flex; gap: 1.5rem; margin: 0 0 1rem; border-bottom: 1px solid #ccc; }
.tabs a { padding: .25rem 0; }
.tabs a[aria-current="page"] { font-weight: bold; border-bottom: 3px solid currentColor; text-decoration: none; }
pre.body { white-space: pre-wrap; overflow-wrap: anywhere; background: #f6f6f6; padding: .75rem; max-height: 40rem; overflow: auto; }
pre.fields { margin: 0; white-space: pre-wrap; font-size: .85rem; }
.secret-row { display: flex; gap: .5rem; align-items: center; max-width: 48rem; }
.secret-row input { max-width: none; }
figure { margin: 1rem 0; }
figcaption { color: var(--muted); font-size: .9rem; }
svg.chart { display: block; max-width: 48rem; height: auto; }
.chart-axis { stroke: var(--muted); stroke-width: 1; }
.chart-grid { stroke: var(--line); stroke-width: 1; }
.chart-bar { fill: var(--accent); }
.chart-flagged { fill: var(--bad); }
.chart-threshold { fill: none; stroke: var(--bad); stroke-width: 2; stroke-dasharray: 6 4; }
.chart-label { fill: var(--muted); font-size: 11px; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
select { font: inherit; padding: .35rem .5rem; border: 1px solid #6b7781; border-radius: 4px; background: var(--bg); color: var(--ink); }
.filters { display: flex; flex-wrap: wrap; gap: 0 1.5rem; align-items: flex-end; }
.filters .field input { width: 20rem; }
td form.inline select { margin-right: .5rem; }
`;

/** The Copy button next to a new key's secret; without script the field is still selectable. */
export const CONSOLE_JS = `
document.addEventListener('click', function (event) {
  var button = event.target.closest('[data-copy]');
  if (!button) return;
  var field = document.getElementById(button.getAttribute('data-copy'));
  var status = document.getElementById(button.getAttribute('data-copy') + '-status');
  var done = function (text) { if (status) status.textContent = text; };
  field.select();
  if (navigator.clipboard && navigator.clipboard.writeText) {
    navigator.clipboard.writeText(field.value).then(function () { done('Copied.'); }, function () { done('Select the secret and copy it.'); });
  } else {
    done(document.execCommand && document.execCommand('copy') ? 'Copied.' : 'Select the secret and copy it.');
  }
});
`;
