// A room whose process may open few files (`ulimit -n`) holds as many
// streams as its descriptors leave room for, and refuses the next one with a
// 503 that names the limit, and goes on answering. Before, its streams took
// every descriptor the process had, and the room failed wherever a file was
// next opened: a module loaded on first use answered 500, with EMFILE and a
// stack trace in the log.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { KEPT_FROM_STREAMS } from '../../src/http/open-files.js';
import { ceServe, roomOperator } from '../helpers/ce-serve.js';
import { rpcRequest } from '../helpers/server.js';

const OPEN_FILES = 200;
const HANDOFFS_VIEW = 'workspace:///.room/handoffs';

test('streams up to what the open-file limit leaves room for, then a 503 naming it; the room answers on', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'commonroom-open-files-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'notes.md');
  writeFileSync(file, '# Notes\n');
  const served = await ceServe(file, { openFiles: OPEN_FILES });
  onTestFinished(served.kill);
  const op = roomOperator(file);
  await op.addParticipant('alice');
  const token = await op.session('alice', ['read']);
  const call = (method: string, params: Record<string, unknown>) => {
    const { url, init } = rpcRequest(served.mcpUrl, method, params, { token });
    return fetch(url, init as RequestInit);
  };
  const listen = () => call('subscriptions/listen', { notifications: { resourceSubscriptions: [HANDOFFS_VIEW] } });

  // Each stream stays open until its body is cancelled.
  const streams: Response[] = [];
  onTestFinished(async () => {
    await Promise.all(streams.map((stream) => stream.body?.cancel()));
  });
  let refused: Response | null = null;
  while (streams.length < OPEN_FILES) {
    const stream = await listen();
    if (stream.status !== 200) {
      refused = stream;
      break;
    }
    streams.push(stream);
  }
  expect(streams.length).toBe(OPEN_FILES - KEPT_FROM_STREAMS);
  expect(refused?.status).toBe(503);
  expect(refused?.headers.get('retry-after')).toBe('5');
  const answer = (await refused!.json()) as { error: { message: string } };
  expect(answer.error.message).toBe(
    `the room holds ${OPEN_FILES - KEPT_FROM_STREAMS} open streams, the most its process's limit of ${OPEN_FILES} open files leaves room for (ulimit -n; LimitNOFILE= under systemd); try again later`,
  );

  // The room answers on, a method it had not been asked for yet included.
  const artifact = await fetch(`${op.baseUrl}/workspace/artifact`, { headers: { authorization: `Bearer ${token}` } });
  expect(artifact.status).toBe(200);
  expect((await call('tools/list', {})).status).toBe(200);
  // A stream closed makes room for another.
  await streams.pop()!.body?.cancel();
  await expect
    .poll(
      async () => {
        const again = await listen();
        if (again.status === 200) streams.push(again);
        else await again.body?.cancel();
        return again.status;
      },
      { timeout: 15_000, interval: 200 },
    )
    .toBe(200);
  expect(served.stderr()).not.toMatch(/EMFILE|\n\s+at /);
}, 60_000);
