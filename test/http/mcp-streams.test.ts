// Live streams under pressure: a listener that does not read is dropped while
// the room keeps writing; idle streams get keep-alive comments; a session has
// a bounded number of streams.
import { scrape, valueOf } from '../helpers/prometheus.js';
import { connect } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { acceptHandoff, completeHandoff, createHandoff } from '../helpers/engine.js';
import { isMethod, listen, nextFrame } from '../helpers/mcp-wire.js';
import { caller } from '../helpers/room.js';
import { rpc, rpcRequest, startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.stop();
  s = undefined;
});

test('a listener that stops reading is dropped; the room never waits for it', async () => {
  s = await startTestServer({ maxStreamQueue: 3, metrics: true });
  const alice = caller('alice');
  const bob = caller('bob');
  const handoffs = Array.from({ length: 30 }, (_, i) => {
    const { handoff } = createHandoff(s!.room, alice, { summary: `big ${i}`, assignee: 'bob' });
    acceptHandoff(s!.room, bob, { handoff_id: handoff.handoff_id });
    return handoff;
  });
  const before = s.room.bus.size;

  // A raw client that sends the listen request and then never reads a byte.
  const { init } = rpcRequest(
    s.http.mcpUrl,
    'subscriptions/listen',
    { notifications: { taskIds: handoffs.map((h) => h.task_id) } },
    { token: s.tokens.alice, tasks: true, id: 'slow' },
  );
  const url = new URL(s.http.mcpUrl);
  const socket = connect(Number(url.port), url.hostname);
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.pause();
  const headers = Object.entries(init.headers as Record<string, string>)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n');
  const body = init.body as string;
  socket.write(
    `POST /mcp HTTP/1.1\r\nhost: ${url.host}\r\n${headers}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  await expect.poll(() => s!.room.bus.size).toBe(before + 1);

  // Each completion is a large task notification for that listener.
  const text = 'x'.repeat(250_000);
  for (const handoff of handoffs) {
    const done = completeHandoff(s.room, bob, {
      handoff_id: handoff.handoff_id,
      result: { content: [{ type: 'text', text }] },
    });
    expect(done.handoff.status).toBe('result_ready');
    // Let the stream take what it can, as it would between requests: only a full socket stops it.
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await expect.poll(() => s!.room.bus.size, { timeout: 15_000 }).toBe(before);
  socket.destroy();
  expect(valueOf(await scrape(s.http.baseUrl, s.tokens.admin), 'ce_listeners_dropped_total')).toBe(1);
});

test('an idle stream gets keep-alive comments', async () => {
  s = await startTestServer({ keepAliveMs: 50 });
  const stream = await listen(s, 'alice', { resourceSubscriptions: ['workspace:///room.md'] }, { id: 'idle' });
  await nextFrame(stream, isMethod('notifications/subscriptions/acknowledged'), 'the acknowledgement');
  await expect.poll(() => stream.comments.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
  expect(stream.comments[0]).toMatch(/keep-alive/);
  stream.abort();
});

test('a session holds a bounded number of streams: past it, 429 with a clear message', async () => {
  s = await startTestServer({ maxStreamsPerSession: 2 });
  const open = [
    await listen(s, 'alice', { resourceSubscriptions: ['workspace:///room.md'] }, { id: 'a' }),
    await listen(s, 'alice', { resourceSubscriptions: ['workspace:///room.md'] }, { id: 'b' }),
  ];
  for (const stream of open) await nextFrame(stream, isMethod('notifications/subscriptions/acknowledged'), 'ack');
  const third = await rpc(
    s.http.mcpUrl,
    'subscriptions/listen',
    { notifications: {} },
    { token: s.tokens.alice, id: 'c' },
  );
  expect(third.status).toBe(429);
  expect(third.body.error.message).toMatch(/already has 2 open streams/);
  // Another session is not affected, and closing one frees a place.
  const bobs = await listen(s, 'bob', { resourceSubscriptions: ['workspace:///room.md'] }, { id: 'd' });
  await nextFrame(bobs, isMethod('notifications/subscriptions/acknowledged'), 'ack');
  const streams = s.room.bus.size;
  open[0]!.abort();
  await expect.poll(() => s!.room.bus.size).toBe(streams - 1);
  const again = await listen(s, 'alice', { resourceSubscriptions: ['workspace:///room.md'] }, { id: 'e' });
  await nextFrame(again, isMethod('notifications/subscriptions/acknowledged'), 'ack after one closed');
  for (const stream of [open[1]!, bobs, again]) stream.abort();
});
