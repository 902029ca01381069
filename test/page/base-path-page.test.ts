// The room's page under a path prefix (ce serve --base-path), in a real
// browser: opened at the prefix with or without its slash, it signs in, goes
// live and shows another participant's change, and every request it makes is
// under the prefix.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ceServe, roomOperator, type RoomOperator, type ServedRoom } from '../helpers/ce-serve.js';
import { launchChromium, watchedPage } from '../helpers/browser.js';
import { rpc } from '../helpers/server.js';

const BASE = '/rooms/field-notes';
let served: ServedRoom;
let room: RoomOperator;
let browser: Browser;

beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ce-page-base-'));
  const file = path.join(dir, 'notes.md');
  writeFileSync(file, '# Field notes\n\nUnder a prefix.\n');
  served = await ceServe(file, { args: ['--base-path', BASE] });
  room = roomOperator(file);
  await room.addParticipant('alice');
  await room.addParticipant('bob');
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await served?.stop();
});

it('opened at the prefix without its slash, the page signs in, goes live and shows a change made elsewhere', async () => {
  expect(room.baseUrl).toMatch(new RegExp(`${BASE}$`));
  const token = await room.session('alice', ['read', 'write']);
  const bob = await room.session('bob', ['read', 'write']);
  const watched = await watchedPage(browser);
  const { page } = watched;
  try {
    await page.goto(`${room.baseUrl}#token=${token}`);
    await page.locator('#live[data-state="live"]').waitFor({ timeout: 10_000 });
    expect(page.url()).toBe(`${room.baseUrl}/`);
    await expect.poll(() => page.locator('#artifact-body h1').textContent()).toBe('Field notes');

    const created = await rpc(
      room.mcpUrl,
      'tools/call',
      { name: 'handoff_create', arguments: { summary: 'Seen through the prefix', assignee: 'alice' } },
      { token: bob },
    );
    expect(created.body.result.isError ?? false).toBe(false);
    await expect
      .poll(() => page.locator('body').textContent(), { timeout: 10_000 })
      .toContain('Seen through the prefix');
    await watched.screenshot('page-under-base-path');

    const origin = new URL(room.baseUrl).origin;
    expect(watched.requests.length).toBeGreaterThan(4);
    expect(watched.requests.filter((url) => !url.startsWith(`${origin}${BASE}/`) && url !== room.baseUrl)).toEqual([]);
    expect(watched.errors).toEqual([]);
  } finally {
    await watched.close();
  }
});
