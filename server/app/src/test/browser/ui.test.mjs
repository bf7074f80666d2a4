// The conditions browser (/ui/) in a real Chromium (Debian's, driven by playwright-core) against a running service
// with the demo data (OUTPOST_TEST_SERVER). A failing test leaves a screenshot in server/app/target/ui-tests/.
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const SERVER = process.env.OUTPOST_TEST_SERVER;
const CHROMIUM = process.env.OUTPOST_CHROMIUM ?? '/usr/bin/chromium';
const SHOTS = fileURLToPath(new URL('../../../target/ui-tests/', import.meta.url));
const AXE = readFileSync(fileURLToPath(new URL('./node_modules/axe-core/axe.min.js', import.meta.url)), 'utf8');

if (!SERVER) throw new Error('OUTPOST_TEST_SERVER must name a running service with the demo data (./outpost test does this)');

let browser;
let page;
let problems;

before(async () => {
  // --no-sandbox: the tests run as root in CI, where Chromium's sandbox refuses to start.
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
});

after(async () => {
  await browser?.close();
});

beforeEach(async () => {
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  problems = [];
  page.on('pageerror', e => problems.push(`page error: ${e.message}`));
  page.on('console', m => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
});

afterEach(async t => {
  if (t.passed === false) {
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: `${SHOTS}${t.name.replace(/[^\w-]+/g, '_')}.png`, fullPage: true });
  }
  await page.close();
});

/** Opens a page of the browser and waits until its content is drawn (or its error shown); returns that state. */
async function open(path) {
  await page.goto(`${SERVER}/ui/${path}`);
  return settled();
}

async function settled() {
  await page.waitForFunction(() => ['ready', 'error'].includes(document.documentElement.dataset.state), null,
    { timeout: 20000 });
  return page.evaluate(() => document.documentElement.dataset.state);
}

/** axe-core's serious and critical findings on the current page. */
async function seriousViolations() {
  // Evaluated through the DevTools protocol: the page's policy (rightly) refuses an injected inline script.
  await page.evaluate(AXE);
  const result = await page.evaluate(async () => window.axe.run(document, { resultTypes: ['violations'] }));
  return result.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
    .map(v => `${v.id}: ${v.help} (${v.nodes.map(n => n.target.join(' ')).slice(0, 3).join('; ')})`);
}

async function apiJson(path) {
  const r = await fetch(`${SERVER}/v1/json${path}`);
  assert.equal(r.status, 200, path);
  return r.json();
}

describe('conditions browser', () => {
  it('opens the folder tree, searches it and follows a folder link', async () => {
    assert.equal(await open(''), 'ready');
    const tree = page.locator('#tree');
    for (const name of ['Pedestals', 'Gains', 'HV', 'Global']) {
      await assert.doesNotReject(tree.getByRole('link', { name, exact: true }).waitFor());
    }
    await page.fill('#search', 'pedestal');
    assert.deepEqual(await tree.getByRole('link').allTextContents(), ['Pedestals']);
    assert.match(page.url(), /\?q=pedestal$/);
    await tree.getByRole('link', { name: 'Pedestals' }).click();
    assert.equal(await settled(), 'ready');
    assert.equal(await page.locator('h1').textContent(), '/DEMO/Calo/Pedestals');
    assert.equal(await page.locator('#channel-count').textContent(), '16');
    assert.equal(await page.locator('#channel-table tbody tr').count(), 16);
    await page.locator('#iov-count').filter({ hasText: '768' }).waitFor();
    assert.deepEqual(problems, []);
  });

  it('shows a folder\'s tags with their locks and descriptions', async () => {
    assert.equal(await open('folder.html?f=/DEMO/Calo/Gains'), 'ready');
    const rows = page.locator('#tags tbody tr');
    assert.equal(await rows.count(), 3);
    const v1 = rows.filter({ hasText: 'GAINS-v1' });
    assert.match(await v1.textContent(), /standard.*locked.*first calibration/);
    assert.match(await page.locator('#payload').textContent(), /gain:Double,status:UChar,comment:String255/);
    assert.deepEqual(await seriousViolations(), []);
    assert.deepEqual(problems, []);
  });

  it('resolves a global tag to the tags of its folders', async () => {
    assert.equal(await open('globaltag.html?gt=DEMO-GT-2026'), 'ready');
    const rows = page.locator('#resolved tbody tr');
    assert.equal(await rows.count(), 4);
    assert.match(await rows.filter({ hasText: '/DEMO/Calo/Gains' }).textContent(), /GAINS-v2.*unlocked.*MV.*run-lumi/);
    assert.match(await rows.filter({ hasText: '/DEMO/Calo/Pedestals' }).textContent(), /HEAD.*SV.*time/);
    const state = (await fetch(`${SERVER}/v1/json/state/DEMO-GT-2026`)).headers.get('X-Outpost-State');
    assert.equal(await page.locator('#state').textContent(), state);
    assert.deepEqual(await seriousViolations(), []);
  });

  it('draws the IOVs of a known range on the timeline and shows values on hover', async () => {
    const range = 'f=/DEMO/Calo/Pedestals&ch=3&from=2026-01-01T02:00:00Z&to=2026-01-01T05:00:00Z&field=mean';
    assert.equal(await open(`timeline.html?${range}`), 'ready');
    // IOVs with since <= 05:00 and until > 02:00: those starting at 02:00, 03:00, 04:00 and 05:00.
    assert.equal(await page.locator('#plot').getAttribute('data-iovs'), '4');
    assert.equal(await page.locator('#drawn').textContent(), '4 IOVs');
    const api = await apiJson('/count/HEAD/1767232800000000000/1767243600000000000/3/DEMO/Calo/Pedestals');
    assert.equal(api.rows[0][0], 4);
    const box = await page.locator('#plot').boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + 12);
    assert.match(await page.locator('#hover').textContent(), /channel 3: 2026-01-01T0\dZ?.*mean=\d+(\.\d+)?, rms=/s);
    await page.click('#values summary');
    // the table is built by the disclosure's toggle event, which fires after the click returns
    await page.locator('#values-table tbody tr').first().waitFor();
    const cells = await page.locator('#values-table tbody tr').first().locator('td').allTextContents();
    assert.deepEqual(cells.slice(0, 3), ['3', '2026-01-01T02:00:00Z', '2026-01-01T03:00:00Z']);
    assert.equal(await page.locator('#values-table tbody tr').count(), 4);
    assert.deepEqual(await seriousViolations(), []);
    assert.deepEqual(problems, []);
  });

  it('draws a window of a tag in a run/lumi folder and keeps the state in the URL', async () => {
    assert.equal(await open('timeline.html?f=/DEMO/Calo/Gains&tag=GAINS-v2&ch=0-3'), 'ready');
    assert.equal(await page.locator('#plot').getAttribute('data-iovs'), '12');
    await page.fill('#from', '301/0');
    await page.fill('#to', '302/0');
    await page.click('#range-form button[type=submit]');
    await page.waitForURL(/from=301%2F0&to=302%2F0/);
    assert.equal(await settled(), 'ready');
    // the recalibrated IOV [301/0, 303/0) of each channel, and the initial one ending at 301/0 does not reach in
    await page.locator('#drawn').filter({ hasText: /^4 IOVs$/ }).waitFor();
  });

  it('shows the differences of two tags of a folder', async () => {
    assert.equal(await open('diff.html?f=/DEMO/Calo/Gains&a=GAINS-v1&b=GAINS-v2'), 'ready');
    const rows = page.locator('#differences tbody tr');
    assert.equal(await rows.count(), 4);
    const ch2 = await rows.nth(2).locator('td').allTextContents();
    assert.deepEqual(ch2.slice(0, 3), ['2', '301/0', '303/0']);
    assert.match(ch2[3], /gain=1, status=0, comment=initial/);
    assert.match(ch2[4], /gain=1.02, status=1, comment=recalibrated runs 301-302/);
    assert.deepEqual(await seriousViolations(), []);
  });

  it('shows the folders that two global tags resolve differently', async () => {
    assert.equal(await open('diff.html?ga=DEMO-GT-2026&gb=HEAD'), 'ready');
    const other = await page.locator('#other-tags tbody tr').allTextContents();
    assert.equal(other.length, 1);
    assert.match(other[0], /\/DEMO\/Calo\/Gains.*GAINS-v2.*HEAD/);
    assert.equal(await page.locator('#only-a tbody tr').count(), 0);
  });

  it('shows a global tag\'s snapshot at a time', async () => {
    assert.equal(await open('snapshot.html?gt=DEMO-GT-2026&t=2026-01-01T01:30:00Z&r=302/17'), 'ready');
    const folders = page.locator('details.snapshot-folder');
    assert.equal(await folders.count(), 4);
    const ped = folders.filter({ hasText: '/DEMO/Calo/Pedestals' });
    await ped.locator('summary').click();
    // a folder's rows may be fetched when its disclosure opens
    await ped.locator('tbody tr').first().waitFor();
    assert.equal(await ped.locator('tbody tr').count(), 16);
    assert.match(await ped.locator('tbody tr').first().textContent(), /^02026-01-01T01:00:00Z2026-01-01T02:00:00Z/);
    assert.deepEqual(await seriousViolations(), []);
  });

  it('says clearly when a folder does not exist', async () => {
    assert.equal(await open('folder.html?f=/DEMO/NoSuchFolder'), 'error');
    const alert = page.getByRole('alert');
    assert.match(await alert.textContent(), /no folder or folderset \/DEMO\/NoSuchFolder/);
    assert.equal(await page.getByRole('heading', { name: 'Channels' }).isVisible(), false);
    assert.equal(await open('timeline.html?f=/DEMO/NoSuchFolder'), 'error');
    assert.match(await page.getByRole('alert').textContent(), /no folder \/DEMO\/NoSuchFolder/);
    assert.equal(await open('timeline.html?f=/DEMO/Calo/Pedestals&from=yesterday'), 'error');
    assert.match(await page.getByRole('alert').textContent(), /"yesterday" is not a key/);
    assert.deepEqual(await seriousViolations(), []);
  });

  it('serves the pages with a policy that forbids inline scripts, and never writes', async () => {
    const r = await fetch(`${SERVER}/ui/`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-security-policy'), /script-src 'self';/);
    assert.doesNotMatch(r.headers.get('content-security-policy'), /unsafe-inline|unsafe-eval/);
    assert.match(r.headers.get('cache-control'), /max-age=300/);
    const methods = [];
    page.on('request', q => methods.push(q.method()));
    await open('diff.html?f=/DEMO/Calo/Gains&a=GAINS-v1&b=GAINS-v2');
    await open('index.html');
    assert.ok(methods.length > 4);
    assert.deepEqual([...new Set(methods)], ['GET']);
    // an inline script put into the page is refused by the policy
    const ran = await page.evaluate(() => {
      const s = document.createElement('script');
      s.textContent = 'window.inlineRan = true';
      document.body.append(s);
      return Boolean(window.inlineRan);
    });
    assert.equal(ran, false);
    problems = [];
  });
});
