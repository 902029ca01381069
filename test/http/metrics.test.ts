// GET /metrics over real HTTP: off by default (404); on, only a session with
// admin reads it; what it says parses as Prometheus' text format, and its
// counters move by exactly what the test did. A made-up Mcp-Method makes no
// series of its own.
import { readFileSync } from 'node:fs';
import { afterEach, expect, onTestFinished, test } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { addParticipant, approveProposal, createSession, LOCAL_OPERATOR, proposeChange } from '../helpers/engine.js';
import { ceServe } from '../helpers/ce-serve.js';
import { createHandoff, isMethod, listen, nextFrame } from '../helpers/mcp-wire.js';
import { scrape, sumOf, valueOf, type Family } from '../helpers/prometheus.js';
import { withRoomFile } from '../helpers/room-file.js';
import { caller } from '../helpers/room.js';
import { rpc, startTestServer, type TestServer } from '../helpers/server.js';
import { openFileLimit, streamsWithin } from '../../src/http/open-files.js';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.stop();
  s = undefined;
});

const baseOf = (server: TestServer) => server.http.baseUrl;

test('off unless asked for: 404 even for an admin', async () => {
  s = await startTestServer();
  const response = await fetch(`${baseOf(s)}/metrics`, { headers: { authorization: `Bearer ${s.tokens.admin}` } });
  expect(response.status).toBe(404);
});

test('on: only a session with admin reads it; anyone else is refused like on any route', async () => {
  s = await startTestServer({ metrics: true });
  const as = (token?: string) =>
    fetch(`${baseOf(s!)}/metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  const [none, reader, admin] = await Promise.all([as(), as(s.tokens.carol), as(s.tokens.admin)]);
  expect(none.status).toBe(401);
  expect(none.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(reader.status).toBe(403);
  expect(await reader.json()).toMatchObject({ code: 'forbidden', detail: 'this session lacks the admin capability' });
  expect(admin.status).toBe(200);
});

test('the series named in the docs, and counters that move by exactly what was done', async () => {
  s = await startTestServer({ metrics: true });
  const server = s;
  // The batches of the room's start are counted once they are on disk, as every batch is.
  await server.room.commits.settled();
  const before = await scrape(baseOf(server), server.tokens.admin);
  for (const name of [
    'ce_http_requests_total',
    'ce_http_request_duration_seconds',
    'ce_open_streams',
    'ce_open_streams_limit',
    'ce_events_published_total',
    'ce_listeners_dropped_total',
    'ce_commit_batch_size',
    'ce_commit_duration_seconds',
    'ce_event_ring_events',
    'ce_handoffs',
    'ce_tasks_active',
    'ce_tasks_limit',
    'ce_proposals_open',
    'ce_sidecar_bytes',
    'process_cpu_seconds_total',
    'nodejs_eventloop_lag_seconds',
  ]) {
    expect(before.map((f) => f.name)).toContain(name);
  }

  // Two handoffs over REST, one over MCP, one tasks/get, one call with a method nobody knows.
  const rest = () =>
    fetch(`${server.http.restUrl}/handoffs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.tokens.alice}`, 'content-type': 'application/json' },
      body: JSON.stringify({ summary: 'by REST' }),
    });
  expect((await rest()).status).toBe(201);
  expect((await rest()).status).toBe(201);
  const { taskId } = await createHandoff(server, 'alice', { summary: 'by MCP' });
  expect(
    (await rpc(server.http.mcpUrl, 'tasks/get', { taskId }, { token: server.tokens.alice, tasks: true })).status,
  ).toBe(200);
  await rpc(server.http.mcpUrl, 'made/up', {}, { token: server.tokens.alice, headers: { 'mcp-method': 'made/up' } });

  const after = await scrape(baseOf(server), server.tokens.admin);
  const moved = (name: string, labels: Record<string, string> = {}) =>
    valueOf(after, name, labels) - valueOf(before, name, labels);
  const requests = (labels: Record<string, string>) => moved('ce_http_requests_total', labels);
  expect(requests({ door: 'rest', method: 'POST', route: '/workspace/handoffs', status: '201' })).toBe(2);
  expect(requests({ door: 'mcp', method: 'POST', route: 'tools/call handoff_create', status: '200' })).toBe(1);
  expect(requests({ door: 'mcp', method: 'POST', route: 'tasks/get', status: '200' })).toBe(1);
  // The first scrape counted once it had answered.
  expect(requests({ door: 'ops', method: 'GET', route: '/metrics', status: '200' })).toBe(1);
  const histogram = { door: 'rest', method: 'POST', route: '/workspace/handoffs' };
  expect(moved('ce_http_request_duration_seconds', histogram)).toBe(2);
  expect(sumOf(after, 'ce_http_request_duration_seconds', histogram)).toBeGreaterThan(0);
  // Every request is counted somewhere: five above, the first scrape, and the made-up method under /mcp.
  const total = (families: Family[]) =>
    families.find((f) => f.name === 'ce_http_requests_total')!.samples.reduce((n, sample) => n + sample.value, 0);
  expect(total(after) - total(before)).toBe(6);
  expect(after.find((f) => f.name === 'ce_http_requests_total')!.samples.map((m) => m.labels.route)).not.toContain(
    'made/up',
  );

  expect(moved('ce_events_published_total')).toBe(3);
  expect(moved('ce_handoffs', { status: 'open' })).toBe(3);
  expect(moved('ce_tasks_active')).toBe(3);
  expect(valueOf(after, 'ce_tasks_limit')).toBe(32);
  expect(moved('ce_event_ring_events')).toBe(3);
  expect(sumOf(after, 'ce_commit_batch_size') - sumOf(before, 'ce_commit_batch_size')).toBe(3);
  expect(moved('ce_commit_duration_seconds')).toBe(moved('ce_commit_batch_size'));
  expect(valueOf(after, 'ce_sidecar_bytes')).toBeGreaterThan(0);
});

/** The room's series a PromQL expression asks for: a histogram's _bucket, _sum and _count by the histogram's name. */
const seriesIn = (expr: string): string[] =>
  (expr.match(/\b(?:ce|process|nodejs)_[a-z0-9_]+/g) ?? []).map((name) => name.replace(/_(bucket|sum|count)$/, ''));

test('the Grafana dashboard in docs/ asks only for series the room serves', async () => {
  s = await startTestServer({ metrics: true });
  const served = (await scrape(baseOf(s), s.tokens.admin)).map((family) => family.name);
  const dashboard = JSON.parse(readFileSync(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8')) as {
    panels: { targets: { expr: string }[] }[];
  };
  const asked = new Set(dashboard.panels.flatMap((panel) => panel.targets.flatMap((target) => seriesIn(target.expr))));
  expect(asked.size).toBeGreaterThan(10);
  for (const name of asked) expect(served, name).toContain(name);
});

test("the alerts in examples/ are a Prometheus rule group on the room's own series, each with its severity and summary", async () => {
  s = await startTestServer({ metrics: true });
  const served = (await scrape(baseOf(s), s.tokens.admin)).map((family) => family.name);
  const file = parseYaml(readFileSync(new URL('../../examples/prometheus-alerts.yml', import.meta.url), 'utf8')) as {
    groups: { name: string; rules: Record<string, any>[] }[];
  };
  const rules = file.groups.flatMap((group) => group.rules);
  expect(rules.map((rule) => rule.alert)).toEqual([
    'CommonRoomDown',
    'CommonRoomWritesRefused',
    'CommonRoomActiveTasksNearLimit',
    'CommonRoomSlowCommits',
    'CommonRoomStreamsNearLimit',
    'CommonRoomListenersDropped',
    'CommonRoomEventLoopLag',
  ]);
  for (const rule of rules) {
    expect(Object.keys(rule), rule.alert).toEqual(expect.arrayContaining(['alert', 'annotations', 'expr', 'labels']));
    expect(['page', 'ticket'], rule.alert).toContain(rule.labels.severity);
    expect(rule.annotations.summary, rule.alert).toMatch(/\S/);
    expect(rule.expr, rule.alert).toContain('job="commonroom"');
    for (const name of seriesIn(rule.expr)) expect(served, `${rule.alert}: ${name}`).toContain(name);
  }
});

test("open streams and conflicted proposals are read at the scrape, beside the streams' limit", async () => {
  s = await startTestServer({ metrics: true, maxStreams: 300 });
  const server = s;
  // 300, or fewer when this process may open fewer files.
  const limit = valueOf(await scrape(baseOf(server), server.tokens.admin), 'ce_open_streams_limit');
  expect(limit).toBe(streamsWithin(300, openFileLimit()));
  const stream = await listen(server, 'alice', { resourceSubscriptions: ['workspace:///room.md'] }, { id: 'l' });
  await nextFrame(stream, isMethod('notifications/subscriptions/acknowledged'), 'the acknowledgement');
  expect(valueOf(await scrape(baseOf(server), server.tokens.admin), 'ce_open_streams', { kind: 'listen' })).toBe(1);
  // The room's page says who it is in clientInfo: its streams are counted apart.
  const page = await listen(
    server,
    'bob',
    { resourceSubscriptions: ['workspace:///room.md'] },
    { id: 'p', meta: { 'io.modelcontextprotocol/clientInfo': { name: 'commonroom-page', version: '0.1.0' } } },
  );
  await nextFrame(page, isMethod('notifications/subscriptions/acknowledged'), "the page's acknowledgement");
  const both = await scrape(baseOf(server), server.tokens.admin);
  expect(valueOf(both, 'ce_open_streams', { kind: 'listen' })).toBe(1);
  expect(valueOf(both, 'ce_open_streams', { kind: 'page' })).toBe(1);
  page.abort();
  stream.abort();
  await expect
    .poll(async () => valueOf(await scrape(baseOf(server), server.tokens.admin), 'ce_open_streams', { kind: 'listen' }))
    .toBe(0);

  // Two proposals change the same line; once one is accepted the other conflicts.
  const alice = caller('alice');
  const propose = (content: string) =>
    proposeChange(server.room, alice, { base_revision: 1, content, summary: 'title' }).proposal.proposal_id;
  const first = propose('# Room one\n');
  propose('# Room two\n');
  let families = await scrape(baseOf(server), server.tokens.admin);
  expect(valueOf(families, 'ce_proposals_open', { state: 'mergeable' })).toBe(2);
  approveProposal(server.room, caller('dave', ['read', 'approve']), { proposal_id: first });
  families = await scrape(baseOf(server), server.tokens.admin);
  expect(valueOf(families, 'ce_proposals_open', { state: 'mergeable' })).toBe(0);
  expect(valueOf(families, 'ce_proposals_open', { state: 'conflicts' })).toBe(1);
});

test('ce serve --metrics serves them', { timeout: 60_000 }, async () => {
  const { file, token } = withRoomFile((room) => {
    addParticipant(room, LOCAL_OPERATOR, { name: 'alice' });
    return createSession(room, LOCAL_OPERATOR, { participant: 'alice', capabilities: ['read', 'admin'] });
  });
  const served = await ceServe(file, { args: ['--metrics'] });
  onTestFinished(served.kill);
  const families = await scrape(served.restUrl.replace(/\/workspace$/, ''), token);
  expect(valueOf(families, 'ce_open_streams', { kind: 'listen' })).toBe(0);
  expect(await served.stop()).toBe(0);
});
