// A room's memory over a long run (`npm run bench:soak`): one room served
// on core 0 through cycles of the work a team's room sees, from core 1, and
// its memory after a full collection at the end of each cycle. A cycle:
// durable writes (16 clients, handoff_create then tasks/cancel), tasks/get,
// listens opened and closed, sessions made, used (resources/subscribe
// among it) and revoked, proposals approved, handoffs accepted and reported
// on, and refused requests. What a room keeps per task, session, stream or
// request shows as growth from cycle to cycle; what it keeps within bounds
// levels off once those fill.
// SOAK_CYCLES (20) and BENCH_SECONDS (3, the write load's part of a cycle).
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { addParticipant, createSession, LOCAL_OPERATOR, openRoom } from '../test/helpers/engine.js';
import { mcpPost, taskGet } from './lib/mcp.js';
import { buildPrograms, pinSelfToLoadCore, probed, probeMemory, SERVE_QUIETLY, startServer } from './lib/processes.js';
import { makeRoom } from './lib/rooms.js';
import { cancelLeftovers, load, originOf, READ_CONNECTIONS, WRITE_CONNECTIONS } from './lib/runs.js';
import { machine, root, writeSection } from './report.js';

const CYCLES = Number(process.env.SOAK_CYCLES ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
/** tasks/get's part of a cycle. */
const READ_SECONDS = 2;
/** Each cycle's share of the work besides the write load. */
const PER_CYCLE = { listens: 300, sessions: 50, proposals: 30, reported: 100, refused: 100 };
const MiB = 2 ** 20;
const HANDOFFS = 'workspace:///.room/handoffs';

pinSelfToLoadCore();
await buildPrograms();
const dir = mkdtempSync(path.join(tmpdir(), 'ce-soak-'));
const room = makeRoom(dir, 'soak', { listenerSessions: 1 });
// Sessions the bench room has not: an administrator's, an approver's, and carol's to make and revoke.
const engine = openRoom(room.file, { command: 'ce bench' });
const admin = createSession(engine, LOCAL_OPERATOR, { participant: 'alice', capabilities: ['read', 'admin'] }).token;
const approver = createSession(engine, LOCAL_OPERATOR, { participant: 'bob', capabilities: ['read', 'approve'] }).token;
addParticipant(engine, LOCAL_OPERATOR, { name: 'carol' });
engine.close();

const memoryFile = path.join(dir, 'memory.json');
const probe = probed(memoryFile);
const served = await startServer(
  [...probe.args, path.join(root, 'bin', 'ce.js'), 'serve', room.file, ...SERVE_QUIETLY],
  probe.env,
);
const origin = originOf(served.line.mcp_url);
const held = (memory: NodeJS.MemoryUsage) => (memory.heapUsed + memory.external) / MiB;
/** The room's open file descriptors: its sidecar's, its log's, its listening socket and what a cycle left open. */
const openFiles = () => readdirSync(`/proc/${served.child.pid}/fd`).length;

/** A REST call that must succeed; its JSON answer. */
async function rest(method: string, route: string, token: string, body?: unknown): Promise<any> {
  const response = await fetch(`${origin}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** Streams opened until each is acknowledged, then closed by the client, as a page closed or an agent gone. */
async function listens(count: number): Promise<void> {
  const closers = Array.from({ length: count }, () => new AbortController());
  await Promise.all(
    closers.map(async (closer, i) => {
      const notifications =
        i % 2 === 0 ? { taskIds: [room.taskId] } : { resourceSubscriptions: [HANDOFFS, 'workspace:///soak.md'] };
      const request = mcpPost('subscriptions/listen', { notifications }, { token: room.listeners[0]!, tasks: true });
      const response = await fetch(`${origin}/mcp`, { method: 'POST', ...request, signal: closer.signal });
      const reader = response.body!.getReader();
      for (let seen = ''; !seen.includes('notifications/subscriptions/acknowledged');) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`a listen ended before it was acknowledged: ${seen}`);
        seen += Buffer.from(value).toString();
      }
    }),
  );
  for (const closer of closers) closer.abort();
}

async function sessions(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const made = await rest('POST', '/workspace/sessions', admin, { participant: 'carol', capabilities: ['read'] });
    await rest('GET', '/workspace/artifact', made.token);
    // An older client's way to follow a view: held for the session until it ends.
    const subscribe = mcpPost('resources/subscribe', { uri: HANDOFFS }, { token: made.token, name: HANDOFFS });
    const subscribed = await fetch(`${origin}/mcp`, { method: 'POST', ...subscribe });
    if (!subscribed.ok) throw new Error(`resources/subscribe: ${subscribed.status} ${await subscribed.text()}`);
    await rest('DELETE', `/workspace/sessions/${made.session.session_id}`, admin);
  }
}

async function proposals(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const base = (await rest('GET', '/workspace/artifact', room.alice)).revision.number;
    const content = `# soak\n\nRevision ${base + 1}.\n`;
    const { proposal } = await rest('POST', '/workspace/proposals', room.alice, {
      base_revision: base,
      content,
      summary: 'soak',
    });
    await rest('POST', `/workspace/proposals/${proposal.proposal_id}/approve`, approver, {});
  }
}

/** Handoffs to bob, accepted, reported on once and cancelled: what an agent at work leaves behind. */
async function reported(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const { handoff } = await rest('POST', '/workspace/handoffs', room.alice, { summary: 'soak', assignee: 'bob' });
    await rest('POST', `/workspace/handoffs/${handoff.handoff_id}/accept`, room.bob);
    await rest('POST', `/workspace/handoffs/${handoff.handoff_id}/progress`, room.bob, { message: 'half way' });
    await rest('POST', '/workspace/task/cancel', room.alice, { task_id: handoff.task_id });
  }
}

/** A body that is not JSON with a token that is no session's, a task that is none, a handoff that is none. */
async function refused(count: number): Promise<void> {
  const json = { 'content-type': 'application/json' };
  for (let i = 0; i < count; i++) {
    await fetch(`${origin}/mcp`, { method: 'POST', headers: { ...json, authorization: 'Bearer cr_none' }, body: '{' });
    await fetch(`${origin}/mcp`, { method: 'POST', ...taskGet(room.alice, 'ta_none') });
    await fetch(`${origin}/workspace/handoffs/ho_none`, { headers: { authorization: `Bearer ${room.alice}` } });
  }
}

/**
 * Waits, at most 10 s, for the room's descriptors to come back to `files`: a
 * fetch aborted mid-stream leaves its socket open a few seconds before the
 * client closes it (the room closes its end at once then).
 */
async function socketsClosed(files: number): Promise<void> {
  for (let waited = 0; waited < 10_000 && openFiles() > files + 2; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface Cycle {
  writes: number;
  held: number;
  rss: number;
  files: number;
}
const cycles: Cycle[] = [];
let startFiles = 0;
try {
  const start = await probeMemory(served.child, memoryFile);
  startFiles = openFiles();
  console.log(
    `start: ${held(start).toFixed(2)} MiB held, ${(start.rss / MiB).toFixed(0)} MiB resident, ${startFiles} open files`,
  );
  for (let cycle = 1; cycle <= CYCLES; cycle++) {
    const writes = await load(origin, { kind: 'create-cancel', token: room.alice }, WRITE_CONNECTIONS, SECONDS);
    await cancelLeftovers(origin, room);
    const read = { kind: 'fixed', method: 'POST', path: '/mcp', request: taskGet(room.alice, room.taskId) } as const;
    await load(origin, read, READ_CONNECTIONS, READ_SECONDS);
    await listens(PER_CYCLE.listens);
    await sessions(PER_CYCLE.sessions);
    await proposals(PER_CYCLE.proposals);
    await reported(PER_CYCLE.reported);
    await refused(PER_CYCLE.refused);
    await socketsClosed(startFiles);
    const memory = await probeMemory(served.child, memoryFile);
    cycles.push({ writes: writes.total, held: held(memory), rss: memory.rss / MiB, files: openFiles() });
    console.log(
      `cycle ${cycle}: ${writes.total} writes, ${held(memory).toFixed(2)} MiB held, ${(memory.rss / MiB).toFixed(0)} MiB resident, ${openFiles()} open files`,
    );
  }
} finally {
  await served.stop();
  rmSync(dir, { recursive: true, force: true });
}

/** The least-squares slope of MiB a cycle, in KiB a cycle: over the second half, what still grows once bounds have filled. */
function slope(points: number[]): number {
  const n = points.length;
  const meanX = (n - 1) / 2;
  const meanY = points.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  points.forEach((y, x) => {
    num += (x - meanX) * (y - meanY);
    den += (x - meanX) ** 2;
  });
  return den === 0 ? 0 : (num / den) * 1024;
}
const later = cycles.slice(Math.floor(cycles.length / 2)).map((c) => c.held);
const writes = cycles.reduce((sum, c) => sum + c.writes, 0);
const each = (n: number) => (n * CYCLES).toLocaleString('en');
const [fewestFiles, mostFiles] = [Math.min(...cycles.map((c) => c.files)), Math.max(...cycles.map((c) => c.files))];
const filesAfter = fewestFiles === mostFiles ? String(fewestFiles) : `${fewestFiles} to ${mostFiles}`;
writeSection(
  'soak',
  `## A room's memory over a long run (\`npm run bench:soak\`)

${new Date().toISOString().slice(0, 10)}, ${machine()}. One room served on core 0, worked from core 1 through ${CYCLES} cycles; in all, ${writes.toLocaleString('en')} durable writes (16 clients, \`handoff_create\` then \`tasks/cancel\`, ${SECONDS} s a cycle) and tasks/get for ${READ_SECONDS} s a cycle, ${each(PER_CYCLE.listens)} listens opened and closed, ${each(PER_CYCLE.sessions)} sessions made, used (\`resources/subscribe\` among it) and revoked, ${each(PER_CYCLE.proposals)} proposals approved, ${each(PER_CYCLE.reported)} handoffs accepted, reported on and cancelled, and ${each(PER_CYCLE.refused * 3)} refused requests. Memory held is the JavaScript heap and external memory after a full collection at the end of each cycle; open files, the room's descriptors then (\`/proc/PID/fd\`).

| cycle | durable writes | memory held (MiB) | resident (MiB) | open files |
| --- | --- | --- | --- | --- |
${cycles.map((c, i) => `| ${i + 1} | ${c.writes.toLocaleString('en')} | ${c.held.toFixed(2)} | ${c.rss.toFixed(0)} | ${c.files} |`).join('\n')}

Over the second half of the cycles, memory held ran from ${Math.min(...later).toFixed(2)} to ${Math.max(...later).toFixed(2)} MiB, a slope of ${slope(later).toFixed(0)} KiB a cycle. Open files: ${startFiles} before the first cycle, ${filesAfter} after each.`,
);
console.log(
  `second half: ${Math.min(...later).toFixed(2)} to ${Math.max(...later).toFixed(2)} MiB, ${slope(later).toFixed(0)} KiB a cycle`,
);
