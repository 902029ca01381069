// Live streams under pressure: a listener that does not read is dropped while
// the room keeps writing, and one that falls behind and catches up gets every
// frame, each a well-formed chunk (an HTTP/1.0 listener's unchunked); idle
// streams get keep-alive comments; a session has a bounded number of streams;
// a stream's connection is kept or closed as its client asked.
import { scrape, valueOf } from '../helpers/prometheus.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { acceptHandoff, completeHandoff, createHandoff } from '../helpers/engine.js';
import { isMethod, listen, nextFrame } from '../helpers/mcp-wire.js';
import { caller } from '../helpers/room.js';
import { rpc, rpcRequest, startTestServer, type TestServer } from '../helpers/server.js';
import { SseStream } from '../../src/http/mcp/sse.js';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.stop();
  s = undefined;
});

/** `count` handoffs alice asked of bob, each accepted by him. */
function acceptedHandoffs(server: TestServer, count: number) {
  return Array.from({ length: count }, (_, i) => {
    const { handoff } = createHandoff(server.room, caller('alice'), { summary: `big ${i}`, assignee: 'bob' });
    acceptHandoff(server.room, caller('bob'), { handoff_id: handoff.handoff_id });
    return handoff;
  });
}

/**
 * A raw client's listen request on `taskIds`, once the room holds its stream; its socket paused until
 * resumed, `text()` is what it has read, a character a byte (latin1), as a chunk's size counts them.
 */
async function rawListen(server: TestServer, taskIds: string[], version: '1.1' | '1.0') {
  const { init } = rpcRequest(
    server.http.mcpUrl,
    'subscriptions/listen',
    { notifications: { taskIds } },
    { token: server.tokens.alice, tasks: true, id: 'raw' },
  );
  const streams = server.room.bus.size;
  const url = new URL(server.http.mcpUrl);
  const socket = connect(Number(url.port), url.hostname);
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.pause();
  const headers = Object.entries(init.headers as Record<string, string>).map(([k, v]) => `${k}: ${v}\r\n`);
  const body = init.body as string;
  socket.write(
    `POST /mcp HTTP/${version}\r\nhost: ${url.host}\r\n${headers.join('')}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  const received: Buffer[] = [];
  socket.on('data', (data: Buffer) => received.push(data));
  await expect.poll(() => server.room.bus.size).toBe(streams + 1);
  return { socket, text: () => Buffer.concat(received).toString('latin1') };
}

/** A chunked body's chunks, each checked against its size line; what follows the last whole chunk is left. */
function chunksOf(body: string): string[] {
  const chunks: string[] = [];
  let at = 0;
  for (;;) {
    const line = body.indexOf('\r\n', at);
    if (line < 0) return chunks;
    const size = Number.parseInt(body.slice(at, line), 16);
    expect(body.slice(at, line)).toMatch(/^[0-9a-f]+$/);
    if (body.length < line + 2 + size + 2) return chunks;
    chunks.push(body.slice(line + 2, line + 2 + size));
    expect(body.slice(line + 2 + size, line + 4 + size)).toBe('\r\n');
    at = line + 4 + size;
  }
}

test('a listener that stops reading is dropped; the room never waits for it', async () => {
  s = await startTestServer({ maxStreamQueue: 3, metrics: true });
  const handoffs = acceptedHandoffs(s, 30);
  const before = s.room.bus.size;

  // A raw client that sends the listen request and then never reads a byte.
  const reader = await rawListen(
    s,
    handoffs.map((h) => h.task_id),
    '1.1',
  );

  // Each completion is a large task notification for that listener.
  const text = 'x'.repeat(250_000);
  for (const handoff of handoffs) {
    const done = completeHandoff(s.room, caller('bob'), {
      handoff_id: handoff.handoff_id,
      result: { content: [{ type: 'text', text }] },
    });
    expect(done.handoff.status).toBe('result_ready');
    // Let the stream take what it can, as it would between requests: only a full socket stops it.
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await expect.poll(() => s!.room.bus.size, { timeout: 15_000 }).toBe(before);
  reader.socket.destroy();
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

test('a listener that falls behind and catches up gets every frame, in order, each one chunk of its response', async () => {
  s = await startTestServer();
  const handoffs = acceptedHandoffs(s, 24);
  const before = s.room.bus.size;
  const reader = await rawListen(
    s,
    handoffs.map((h) => h.task_id),
    '1.1',
  );
  // 24 results of 250 KB: more than the socket's buffers hold, fewer than the stream's queue.
  for (const [i, handoff] of handoffs.entries()) {
    completeHandoff(s.room, caller('bob'), {
      handoff_id: handoff.handoff_id,
      result: { content: [{ type: 'text', text: `${i} ${'x'.repeat(250_000)}` }] },
    });
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(s.room.bus.size).toBe(before + 1);
  reader.socket.resume();
  const completions = () =>
    chunksOf(reader.text().slice(reader.text().indexOf('\r\n\r\n') + 4))
      .join('')
      .split('\n\n')
      .filter((frame) => frame.includes('"notifications/tasks"'))
      .map((frame) => JSON.parse(frame.replace(/^event: message\ndata: /, '')));
  await expect.poll(() => completions().length, { timeout: 10_000 }).toBe(24);
  expect(reader.text()).toMatch(/^HTTP\/1\.1 200 OK\r\n[^]*Transfer-Encoding: chunked\r\n/);
  expect(
    completions().map((frame) => [frame.params.taskId, frame.params.result.content[0].text.split(' ')[0]]),
  ).toEqual(handoffs.map((h, i) => [h.task_id, String(i)]));
  reader.socket.destroy();
});

test('an HTTP/1.0 listener gets its frames unchunked', async () => {
  s = await startTestServer();
  const alice = caller('alice');
  const { handoff } = createHandoff(s.room, alice, { summary: 'one', assignee: 'bob' });
  acceptHandoff(s.room, caller('bob'), { handoff_id: handoff.handoff_id });
  const reader = await rawListen(s, [handoff.task_id], '1.0');
  reader.socket.resume();
  await expect.poll(() => reader.text()).toMatch(/notifications\/subscriptions\/acknowledged/);
  completeHandoff(s.room, caller('bob'), {
    handoff_id: handoff.handoff_id,
    result: { content: [{ type: 'text', text: 'done' }] },
  });
  await expect.poll(() => reader.text()).toMatch(/"notifications\/tasks"/);
  const [head, body] = reader.text().split('\r\n\r\n');
  expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
  expect(head).not.toMatch(/Transfer-Encoding/i);
  expect(body).toMatch(
    /^event: message\ndata: \{[^\n]*"notifications\/subscriptions\/acknowledged"[^\n]*\}\n\nevent: message\ndata: \{[^\n]*"notifications\/tasks"[^\n]*"status":"completed"/,
  );
  reader.socket.destroy();
});

test('an empty frame sends nothing, where an empty chunk would have ended the response', async () => {
  const server = createServer((_req, res) => {
    const sse = new SseStream(res, 60_000);
    sse.sendFrame('');
    sse.sendFrame(new Uint8Array(0));
    sse.sendFrame('data: after\n\n');
    sse.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1').on('data', (data: string) => (text += data));
    socket.write('GET / HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
    // Up to the response's last chunk (the connection is kept alive after it).
    await expect.poll(() => text).toMatch(/\r\n0\r\n\r\n$/);
    socket.destroy();
    expect(chunksOf(text.slice(text.indexOf('\r\n\r\n') + 4))).toEqual(['data: after\n\n', '']);
  } finally {
    server.close();
  }
});

test('a stream keeps its connection as the client asked: closed after it ends when asked, kept alive otherwise', async () => {
  const server = createServer((_req, res) => {
    const sse = new SseStream(res, 60_000);
    sse.sendFrame('data: one\n\n');
    sse.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const ask = async (connection: string) => {
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    let text = '';
    let closed = false;
    socket.setEncoding('latin1').on('data', (data: string) => (text += data));
    socket.on('close', () => (closed = true));
    socket.write(`GET / HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: ${connection}\r\n\r\n`);
    await expect.poll(() => text).toMatch(/\r\n0\r\n\r\n$/);
    return { socket, head: text.slice(0, text.indexOf('\r\n\r\n')), closed: () => closed };
  };
  try {
    const closing = await ask('close');
    expect(closing.head).toMatch(/\r\nConnection: close(\r\n|$)/);
    await expect.poll(closing.closed).toBe(true);
    const kept = await ask('keep-alive');
    expect(kept.head).toMatch(/\r\nConnection: keep-alive(\r\n|$)/);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(kept.closed()).toBe(false);
    kept.socket.destroy();
  } finally {
    server.close();
  }
});
