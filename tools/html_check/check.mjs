// Renders a tfscan HTML report in headless Chromium (from disk, file://) and
// fails on any console error, page error, failed request or request to any
// other address; checks the key elements and that the node table's search
// filters (search, phase, change); that "what changes" leads the page;
// writes a screenshot.
//
// usage: node check.mjs REPORT.html [--screenshot OUT.png] [--min-rows N]
//        [--require changes,newfallbacks,chart,matrix,partition,islands,wishlist,nodes,parity,findings]
//        [--json REPORT.json]
//
// With --json (the same scan's JSON report) the elements required are those
// the data calls for: a partition picture where a placement has partition
// edges, islands where there are islands, and so on.
//
// Chromium: /usr/bin/chromium (Debian package), or $CHROMIUM.
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(name);
  if (i < 0) return def;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const screenshot = opt('--screenshot', '');
const minRows = Number(opt('--min-rows', '1'));
const jsonReport = opt('--json', '');
let required = opt('--require', 'chart,matrix,partition,islands,wishlist,nodes').split(',').filter(Boolean);
if (jsonReport) {
  const r = JSON.parse(readFileSync(jsonReport, 'utf8'));
  const need = new Set(['chart', 'matrix']);
  for (const m of r.models) {
    if (m.findings.length) need.add('findings');
    for (const t of m.targets) {
      if (t.delta) need.add('changes');
      if (t.delta && t.delta.new_fallback_nodes > 0) need.add('newfallbacks');
      if (t.nodes.length) need.add('nodes');
      if (t.placement && (t.placement.partition_edges || []).length) need.add('partition');
      if ((t.islands || []).length) need.add('islands');
      if ((t.wishlist || []).length) need.add('wishlist');
      if (t.parity && t.parity.outputs.some((o) => o.stats && o.stats.histogram.length)) need.add('parity');
    }
  }
  if (!r.models.length) need.clear();
  required = [...need];
  console.log(`html_check: ${jsonReport}: checking ${required.join(', ')}`);
}
if (args.length !== 1) {
  console.error('usage: node check.mjs REPORT.html [--screenshot OUT.png] [--min-rows N] [--require LIST]');
  process.exit(2);
}
const report = resolve(args[0]);
if (!existsSync(report)) {
  console.error(`html_check: ${report}: no such file`);
  process.exit(2);
}
const url = pathToFileURL(report).href;
const problems = [];
const fail = (msg) => problems.push(msg);

const userDataDir = mkdtempSync(join(tmpdir(), 'tfscan-html-check-'));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1400, height: 1800 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const page = context.pages()[0] || await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') fail(`console ${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => fail(`page error: ${e.message}`));
  page.on('requestfailed', (r) => fail(`request failed: ${r.url()} (${r.failure()?.errorText})`));
  // The report must be self-contained: the only request is the file itself.
  await context.route('**/*', (route) => {
    const u = route.request().url();
    if (u === url) return route.continue();
    fail(`request to another address: ${u}`);
    return route.abort();
  });

  const t0 = Date.now();
  await page.goto(url, { waitUntil: 'load' });
  const loadMs = Date.now() - t0;

  const count = (sel) => page.locator(sel).count();
  const need = async (name, sel, min = 1) => {
    if (!required.includes(name)) return;
    const n = await count(sel);
    if (n < min) fail(`${name}: want at least ${min} of ${sel}, found ${n}`);
  };
  await need('changes', 'section#changes table.changes tbody tr');
  await need('newfallbacks', 'section#changes table.new-fallbacks tbody tr');
  // "What changes" comes first: before the gate and every model section.
  if (required.includes('changes')) {
    const first = await page.evaluate(() => document.querySelector('main > section')?.id);
    if (first !== 'changes') fail(`the page opens on section "${first}", not "changes"`);
    // sorting must not throw; twice leaves the most new fallbacks on top
    await page.locator('table.changes thead th').nth(2).click();
    await page.locator('table.changes thead th').nth(2).click();
  }
  await need('chart', 'svg.chart rect[class^="seg-"]');
  await need('matrix', 'table.matrix tbody tr');
  await need('partition', 'svg.partition g.device', 2);
  await need('partition', 'svg.partition path.transfer');
  await need('islands', 'figure.island svg');
  await need('wishlist', 'table.wishlist tbody tr');
  await need('parity', 'figure.histogram rect.bar');
  await need('findings', 'table.findings tbody tr');
  await need('errors', 'section#errors table tbody tr');
  await need('errors', '#errors-badge a[href="#errors"]');

  // Sorting the matrix must not throw (errors are collected above).
  if (required.includes('matrix')) {
    await page.locator('table.matrix thead th').nth(1).click();
    await page.locator('table.matrix thead th').nth(0).click();
  }

  if (required.includes('nodes')) {
    const rows = page.locator('#node-table tbody tr');
    const total = await rows.count();
    if (total < minRows) fail(`node table: want at least ${minRows} rows on the first page, found ${total}`);
    if (total > 200) fail(`node table: ${total} rows in the DOM, it must render one page at a time`);
    const countText = async () => (await page.locator('#node-count').textContent()) || '';
    const before = await countText();
    if (total > 0) {
      // Search for the last path segment of the last row on the page: it must
      // stay, and every row shown must match.
      const path = (await rows.last().locator('td').first().textContent()) || '';
      const q = path.split('/').pop();
      const t1 = Date.now();
      await page.fill('#node-search', q);
      await page.waitForFunction((b) => document.getElementById('node-count').textContent !== b, before, { timeout: 10000 })
        .catch(() => fail(`search "${q}" did not change the count (${before})`));
      const searchMs = Date.now() - t1;
      const shown = await rows.allTextContents();
      if (shown.length === 0) fail(`search "${q}" found nothing`);
      for (const r of shown) {
        if (!r.toLowerCase().includes(q.toLowerCase())) { fail(`search "${q}" shows a row without it: ${r}`); break; }
      }
      await page.fill('#node-search', 'zz-no-such-node-zz');
      await page.waitForFunction(() => document.querySelectorAll('#node-table tbody tr').length === 0, null, { timeout: 10000 })
        .catch(() => fail('a search matching nothing still shows rows'));
      await page.fill('#node-search', '');
      await page.waitForFunction(() => document.querySelectorAll('#node-table tbody tr').length > 0, null, { timeout: 10000 })
        .catch(() => fail('clearing the search does not bring the rows back'));
      // Filters by phase and by change: every row shown has the value chosen.
      const filterBy = async (select, col, label) => {
        const values = await page.locator(`${select} option`).allTextContents();
        if (!values.includes(label)) return false;
        const b = await countText();
        await page.selectOption(select, { label });
        await page.waitForFunction((x) => document.getElementById('node-count').textContent !== x, b, { timeout: 10000 }).catch(() => {});
        const cells = await page.locator(`#node-table tbody tr td:nth-child(${col})`).allTextContents();
        if (cells.length === 0) fail(`${select} "${label}" shows no rows`);
        for (const c of cells) {
          if (c !== label) { fail(`${select} "${label}" shows a row with "${c}"`); break; }
        }
        await page.selectOption(select, { label: 'all' });
        return true;
      };
      if (required.includes('changes') && !(await filterBy('#node-phase', 4, 'step'))) fail('no phase "step" to filter by');
      if (required.includes('newfallbacks')) await filterBy('#node-change', 7, 'new fallback');
      await page.waitForFunction((b) => document.getElementById('node-count').textContent === b, before, { timeout: 10000 })
        .catch(() => fail('resetting the filters does not bring every node back'));
      // Paging
      if (!(await page.locator('#node-next').isDisabled())) {
        await page.click('#node-next');
        const p = await page.locator('#node-page').textContent();
        if (!/^page 2 \//.test(p || '')) fail(`next page shows "${p}"`);
      }
      console.log(`html_check: ${report}: loaded in ${loadMs} ms, ${before}, search in ${searchMs} ms`);
    }
  }
  if (screenshot) {
    await page.fill('#node-search', '').catch(() => {});
    await page.locator('#node-search').blur().catch(() => {});
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: screenshot, fullPage: false });
  }
} finally {
  await context.close();
  rmSync(userDataDir, { recursive: true, force: true });
}
if (problems.length) {
  for (const p of problems) console.error(`html_check: ${report}: ${p}`);
  process.exit(1);
}
console.log(`html_check: ${report}: ok`);
