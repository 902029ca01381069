// ce status FILE: how a room is doing. For a room a process serves: its pid,
// how long it has run, its addresses and whether it is ready (its /readyz,
// asked over HTTP); for any room, what the sidecar says (read-only, as every
// reading command): revision, handoffs by status, active tasks, open
// proposals, live sessions, the newest event, the event ring, the sidecar's
// size.
import type { Command } from 'commander';
import type { Readiness, RoomStatus } from '../engine/index.js';
import packageJson from '../../package.json' with { type: 'json' };
import type { RuntimeInfo } from '../http/runtime-file.js';
import { parseOutsideJson } from '../outside-json.js';
import { loadEngine, openForReading } from './executor.js';
import { command, FILE_ARGUMENT } from './options.js';
import { answer, fields } from './output.js';
import { bodyText, routeUrl, sendToRoom } from './room-http.js';

export interface StatusOutput {
  file: string;
  version: string;
  /** The process serving the room, or null when none does. */
  process: {
    pid: number;
    started_at: string;
    uptime_seconds: number;
    mcp_url: string;
    rest_url: string;
    page_url: string;
    /** What the room's /readyz said; null when it did not answer. */
    ready: (Readiness & { status: string }) | null;
    /** Its open streams by kind (listen, page, get_mcp), as its /readyz tells the operator; null when it did not. */
    streams: Record<string, number> | null;
    /** The most streams it serves at once, as its /readyz tells the operator; null when it did not. */
    max_streams: number | null;
  } | null;
  room: RoomStatus;
}

type Served = NonNullable<StatusOutput['process']>;
type Ready = Served['ready'];

/** The room's readiness and open streams as its /readyz tells the operator (200 or 503 both carry them); nulls when nothing answers. */
async function readiness(info: RuntimeInfo): Promise<Pick<Served, 'ready' | 'streams' | 'max_streams'>> {
  try {
    const response = await sendToRoom(routeUrl(info.base_url, '/readyz'), {
      method: 'GET',
      headers: { accept: 'application/json', authorization: `Bearer ${info.operator_token}` },
      ...(info.tls_fingerprint256 ? { pin: info.tls_fingerprint256 } : {}),
      signal: AbortSignal.timeout(5_000),
    });
    const body = parseOutsideJson(await bodyText(response), "the room's /readyz") as {
      status: string;
      checks: Readiness['checks'];
      streams?: Record<string, number>;
      max_streams?: number;
    };
    return {
      ready: { status: body.status, ready: body.status === 'ready', checks: body.checks },
      streams: body.streams ?? null,
      max_streams: body.max_streams ?? null,
    };
  } catch {
    return { ready: null, streams: null, max_streams: null };
  }
}

export async function roomStatusOf(file: string): Promise<StatusOutput> {
  const { readRuntimeFile } = await import('../http/runtime-file.js');
  const info = readRuntimeFile(file);
  const engine = await loadEngine();
  const room = openForReading(engine, file);
  let status: RoomStatus;
  try {
    status = engine.roomStatus(room);
  } finally {
    room.close();
  }
  return {
    file,
    version: packageJson.version,
    process: info && {
      pid: info.pid,
      started_at: info.started_at,
      uptime_seconds: Math.max(0, Math.round((Date.now() - Date.parse(info.started_at)) / 1000)),
      mcp_url: info.mcp_url,
      rest_url: info.rest_url,
      page_url: `${info.base_url.replace(/\/$/, '')}/`,
      ...(await readiness(info)),
    },
    room: status,
  };
}

function plain(s: StatusOutput): string {
  const p = s.process;
  const handoffs = Object.entries(s.room.handoffs).map(([status, n]) => `${n} ${status.replaceAll('_', ' ')}`);
  const served: [string, string | null][] = p
    ? [
        ['served', `by process ${p.pid} (ce ${s.version}) for ${p.uptime_seconds} s, since ${p.started_at}`],
        ['ready', readyText(p.ready)],
        [
          'streams',
          p.streams &&
            `${p.streams.listen ?? 0} listening, ${p.streams.page ?? 0} pages, ${p.streams.get_mcp ?? 0} GET /mcp` +
              (p.max_streams === null ? '' : `, of at most ${p.max_streams}`),
        ],
        ['mcp', p.mcp_url],
        ['rest', p.rest_url],
        ['page', p.page_url],
      ]
    : [['served', 'no: no room process runs for this file (ce serve FILE starts one)']];
  return fields([
    ['room', s.file],
    ...served,
    ['revision', s.room.revision && `${s.room.revision.number}, at ${s.room.revision.at}`],
    ['handoffs', handoffs.join(', ') || 'none'],
    ['tasks', `${s.room.tasks.active} active, of the ${s.room.tasks.limit} the room takes`],
    ['proposals', `${s.room.open_proposals} open (${s.room.conflicted_proposals} in conflict)`],
    ['sessions', `${s.room.live_sessions} live`],
    ['last event', s.room.last_event_at],
    ['event ring', `${s.room.events.in_ring} events kept, the newest #${s.room.events.last_id}`],
    ['sidecar', `${s.room.sidecar.path} (${s.room.sidecar.bytes} bytes with its write-ahead log)`],
  ]);
}

/** `yes`, or what is not ready, check by check. */
function readyText(ready: Ready): string {
  if (ready === null) return 'the process did not answer /readyz';
  if (ready.ready) return 'yes';
  const failing = Object.entries(ready.checks).filter(([, said]) => said !== 'ok');
  return `no: ${failing.map(([check, said]) => `${check} ${said}`).join('; ')}`;
}

export function statusCommand(program: Command): void {
  command(program, 'status', 'how a room is doing: its process, readiness, and what its sidecar holds')
    .argument(...FILE_ARGUMENT)
    .addHelpText('after', '\nExample:\n  $ ce status notes.md --json')
    .action(async (file: string, options: { json?: boolean }) => {
      const status = await roomStatusOf(file);
      answer({ json: options.json === true }, status, plain);
    });
}
