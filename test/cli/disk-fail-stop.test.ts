// A real `ce serve` whose disk fails the WAL's fsync: test/fixtures/failsync.c,
// built here and preloaded (LD_PRELOAD), makes fsync and fdatasync of the
// sidecar's -wal fail with EIO while a flag file exists. Under load of
// creates and approvals over REST and MCP, no request is answered 200 or
// 201 for a write that a restart does not show; the room says why in one
// line and exits 70, and the restart reads what is on disk. ce without a
// server says so in one line and exits non-zero.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, onTestFinished, test } from 'vitest';
import { EXIT_DISK_FAILED } from '../../src/cli/disk-watch.js';
import { ceServe, roomOperator } from '../helpers/ce-serve.js';
import { ce, failedWith } from '../helpers/run-ce.js';
import { rpc } from '../helpers/server.js';

const SLOW = { timeout: 120_000 };
const source = fileURLToPath(new URL('../fixtures/failsync.c', import.meta.url));
let dir: string;
let shim: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ce-disk-'));
  shim = path.join(dir, 'failsync.so');
  execFileSync('cc', ['-shared', '-fPIC', '-O2', '-o', shim, source, '-ldl']);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function room(name: string): { file: string; flag: string; env: Record<string, string> } {
  const file = path.join(dir, `${name}.md`);
  writeFileSync(file, '# Notes\n');
  const flag = path.join(dir, `${name}.fail`);
  return { file, flag, env: { LD_PRELOAD: shim, FAILSYNC_FLAG: flag } };
}

test(
  'a failed WAL fsync under load: nothing unkept is acknowledged, the room stops with exit 70, the restart has every acknowledged write',
  SLOW,
  async () => {
    const { file, flag, env } = room('served');
    const served = await ceServe(file, { env });
    onTestFinished(served.kill);
    const op = roomOperator(file);
    await op.addParticipant('alice');
    await op.addParticipant('dave');
    const alice = await op.session('alice', ['read', 'write']);
    const dave = await op.session('dave', ['read', 'approve']);
    const headers = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });

    const acknowledged: string[] = [];
    const refused: string[] = [];
    const create = async (summary: string, door: 'rest' | 'mcp') => {
      try {
        if (door === 'rest') {
          const r = await fetch(`${served.restUrl}/handoffs`, {
            method: 'POST',
            headers: headers(alice),
            body: JSON.stringify({ summary }),
          });
          const body = (await r.json()) as { details?: { reason?: string } };
          if (r.status === 201) acknowledged.push(summary);
          else {
            expect(r.status).toBe(503);
            expect(body.details?.reason).toBe('I/O error');
            refused.push(summary);
          }
        } else {
          const r = await rpc(
            served.mcpUrl,
            'tools/call',
            { name: 'handoff_create', arguments: { summary } },
            { token: alice },
          );
          if (r.status === 200 && r.body.result && !r.body.result.isError) acknowledged.push(summary);
          else {
            expect(r.status).toBe(503);
            expect(r.body.error.data.reason).toBe('I/O error');
            refused.push(summary);
          }
        }
      } catch {
        refused.push(summary); // the room had stopped: nothing was acknowledged
      }
    };
    for (let i = 0; i < 5; i++) await create(`before ${i}`, i % 2 ? 'mcp' : 'rest');
    expect(acknowledged).toHaveLength(5);

    // A proposal to approve when the disk fails.
    const proposed = await fetch(`${served.restUrl}/proposals`, {
      method: 'POST',
      headers: headers(alice),
      body: JSON.stringify({ base_revision: 1, content: '# Notes\n\nApproved?\n', summary: 'An edit' }),
    });
    const { proposal } = (await proposed.json()) as { proposal: { proposal_id: string } };

    writeFileSync(flag, '');
    const approval = fetch(`${served.restUrl}/proposals/${proposal.proposal_id}/approve`, {
      method: 'POST',
      headers: headers(dave),
      body: '{}',
    }).then(
      (r) => r.status,
      () => 'not reached',
    );
    await Promise.all(Array.from({ length: 12 }, (_, i) => create(`during ${i}`, i % 2 ? 'mcp' : 'rest')));
    expect(await approval).not.toBe(200);
    expect(acknowledged.filter((s) => s.startsWith('during'))).toEqual([]);

    expect(await served.exited).toBe(EXIT_DISK_FAILED);
    // One log line (JSON: the helper runs ce serve with --log-level warn) says why it stopped.
    const said = served
      .stderr()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: number; exit: number; msg: string });
    expect(said).toHaveLength(1);
    expect(said[0]).toMatchObject({ level: 50, exit: EXIT_DISK_FAILED });
    expect(said[0]!.msg).toMatch(
      /^the disk failed to write the sidecar \(SQLITE_IOERR_FSYNC, while committing this change\): the change is not acknowledged; read the room again once it is back before relying on it; the room stops \(exit 70\) so that a restart reads only what is on disk$/,
    );

    // The disk is well again: the room starts, and every acknowledged write is there, the file as it was.
    rmSync(flag);
    const again = await ceServe(file);
    onTestFinished(again.kill);
    const list = await fetch(`${again.restUrl}/handoffs?limit=100`, { headers: headers(alice) });
    const summaries = ((await list.json()) as { handoffs: { summary: string }[] }).handoffs.map((h) => h.summary);
    for (const summary of acknowledged) expect(summaries).toContain(summary);
    expect(readFileSync(file, 'utf8')).toBe('# Notes\n');
    expect(await again.stop()).toBe(0);
  },
);

test('ce without a server: the refused change is said in one line, exit 1, and nothing is kept', SLOW, async () => {
  const { file, flag, env } = room('direct');
  await ce(['init', file]);
  await ce(['participant', 'add', file, 'alice']);
  writeFileSync(flag, '');
  const run = await ce(['handoff-create', file, '--participant', 'alice', '--summary', 'Lost?'], { env });
  failedWith(run, 1, /^ce: the disk failed to write the sidecar \(SQLITE_IOERR_FSYNC, while /m);
  expect(run.stderr.trim().split('\n')).toHaveLength(1);
  rmSync(flag);
  const list = await ce(['handoffs', file, '--json']);
  expect(JSON.parse(list.stdout).handoffs).toEqual([]);
  expect(existsSync(flag)).toBe(false);
});
