// Stopping ce serve under load, as systemd or a closed terminal does: every
// request the room took is answered before it exits, and a request that
// comes once the stop began is refused with 503, nothing done. So no change
// is stored that its client was not told of.
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { runtimeFilePath } from '../../src/http/runtime-file.js';
import { tempDir } from '../helpers/room.js';
import { CE_BIN, ce, okJson } from '../helpers/run-ce.js';

const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

async function servedRoom() {
  const file = path.join(tempDir(), 'notes.md');
  writeFileSync(file, '# Notes\n');
  okJson(await ce(['init', file, '--json']));
  okJson(await ce(['participant', 'add', file, 'alice', '--json']));
  const { token } = okJson<{ token: string }>(
    await ce(['session', 'create', file, '--participant', 'alice', '--caps', 'read,write', '--json']),
  );
  const child = spawn(process.execPath, [CE_BIN, 'serve', file, '--port', '0', '--json'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const [line] = (
    await new Promise<string>((resolve) => child.stdout!.once('data', (d: Buffer) => resolve(d.toString())))
  ).split('\n');
  const { rest_url: rest } = JSON.parse(line!) as { rest_url: string };
  return { file, token, child, exited, rest };
}

/** Every handoff the sidecar holds, read by ce once the room is stopped. */
async function storedHandoffs(file: string): Promise<{ handoff_id: string; status: string }[]> {
  const all: { handoff_id: string; status: string }[] = [];
  let cursor: string | null = null;
  do {
    const page: { handoffs: { handoff_id: string; status: string }[]; next_cursor: string | null } = okJson(
      await ce(['handoffs', file, '--limit', '500', '--json', ...(cursor ? ['--cursor', cursor] : [])]),
    );
    all.push(...page.handoffs);
    cursor = page.next_cursor;
  } while (cursor);
  return all;
}

test.each(['SIGTERM', 'SIGHUP'] as const)(
  'a %s under load: every stored change was answered, later requests are 503, and the room exits 0',
  async (signal) => {
    const room = await servedRoom();
    const headers = { authorization: `Bearer ${room.token}`, 'content-type': 'application/json' };
    const created = new Set<string>();
    const cancelled = new Set<string>();
    const refusals: string[] = [];
    let stopped = false;
    // 8 clients on keep-alive connections, each creating a handoff and cancelling it, until the room is gone.
    const client = async (n: number) => {
      for (let i = 0; ; i++) {
        try {
          const made = await fetch(`${room.rest}/handoffs`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ summary: `client ${n}, ${i}` }),
          });
          const body = (await made.json()) as { handoff?: { handoff_id: string; task_id: string }; detail?: string };
          if (made.status !== 201) {
            refusals.push(`${made.status} ${body.detail}`);
            return;
          }
          created.add(body.handoff!.handoff_id);
          const cancel = await fetch(`${room.rest}/task/cancel`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ task_id: body.handoff!.task_id }),
          });
          const answer = (await cancel.json()) as { detail?: string };
          if (cancel.status !== 200) {
            refusals.push(`${cancel.status} ${answer.detail}`);
            return;
          }
          cancelled.add(body.handoff!.handoff_id);
        } catch {
          // The connection was refused or closed: only once the stop began, for a request never taken.
          expect(stopped).toBe(true);
          return;
        }
      }
    };
    const clients = Array.from({ length: 8 }, (_, n) => client(n));
    await expect.poll(() => created.size, { timeout: 10_000 }).toBeGreaterThan(40);
    stopped = true;
    room.child.kill(signal);
    await Promise.all(clients);
    expect(await room.exited).toBe(0);
    expect(existsSync(runtimeFilePath(room.file))).toBe(false);

    for (const refusal of refusals) {
      expect(refusal).toBe('503 the room is stopping; nothing was done: send the request again once it is back');
    }
    const stored = await storedHandoffs(room.file);
    const untold = stored.filter(
      (h) => !created.has(h.handoff_id) || (h.status === 'cancelled') !== cancelled.has(h.handoff_id),
    );
    expect(untold, 'changes stored whose answers never came').toEqual([]);
    expect(stored.length).toBe(created.size);
  },
);
