// The room's Prometheus metrics (prom-client), served at GET /metrics when
// ce serve is given --metrics. What requests do is counted as they finish;
// what the room holds (handoffs, proposals, the event ring, the sidecar's
// size) and its open streams are read when Prometheus scrapes, so a room
// nobody scrapes pays nothing for them. Names and units follow Prometheus'
// conventions; the list is in docs/reference.md.
import type { Registry } from 'prom-client';
import { roomStatus, type Room, type RoomStatus } from '../../engine/index.js';
import type { StreamRegistry } from '../mcp/streams.js';
import { ByFields } from './by-fields.js';
import { DurationHistogram, type DurationSeries } from './duration-histogram.js';
import type { RequestFacts } from './request-facts.js';

const SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const BATCH_SIZES = [1, 2, 4, 8, 16, 32, 64, 128, 256];

type PromClient = typeof import('prom-client');

/** What makes a room's metrics, prom-client imported first: only a room served with --metrics reads it. */
export async function roomMetricsMaker(): Promise<(room: Room, streams: StreamRegistry) => RoomMetrics> {
  const { default: prom } = await import('prom-client');
  return (room, streams) => new RoomMetrics(prom, room, streams);
}

/** A counter whose value is a total the room already keeps, read at each scrape. */
function countedElsewhere(prom: PromClient, registry: Registry, name: string, help: string, total: () => number): void {
  new prom.Counter({
    name,
    help,
    registers: [registry],
    collect() {
      this.reset();
      this.inc(total());
    },
  });
}

export class RoomMetrics {
  readonly registry: Registry;
  private readonly durations = new DurationHistogram(
    'ce_http_request_duration_seconds',
    'Time from a request’s arrival to its answer (to a stream’s first byte for listens and GET /mcp)',
    SECONDS,
  );
  /**
   * The request series seen so far (bounded: doors, methods and routes are
   * the room's own), with their durations and their counts by status, handed
   * to the scrape: a request is a few additions.
   */
  private readonly series = new ByFields<{ duration: DurationSeries; byStatus: Map<number, number> }>();
  /** What the sidecar holds, as read for the scrape under way. */
  private held: RoomStatus | null = null;

  constructor(prom: PromClient, room: Room, streams: StreamRegistry) {
    this.registry = new prom.Registry();
    const registers = [this.registry];
    prom.collectDefaultMetrics({ register: this.registry });
    const series = this.series;
    new prom.Counter({
      name: 'ce_http_requests_total',
      help: 'Requests answered, by door (mcp, rest, page, ops, none), HTTP method, route (REST template or MCP method) and status',
      labelNames: ['door', 'method', 'route', 'status'],
      registers,
      collect() {
        this.reset();
        for (const { duration, byStatus } of series.values()) {
          for (const [status, n] of byStatus) this.inc({ ...duration.labels, status: String(status) }, n);
        }
      },
    });
    const batches = new prom.Histogram({
      name: 'ce_commit_batch_size',
      help: 'State changes that shared one commit (group commit)',
      buckets: BATCH_SIZES,
      registers,
    });
    const commits = new prom.Histogram({
      name: 'ce_commit_duration_seconds',
      help: 'Time from a batch’s COMMIT until it is on disk, the fsync of the sidecar’s log included',
      buckets: SECONDS,
      registers,
    });
    room.commits.onCommitted((size, seconds) => {
      batches.observe(size);
      commits.observe(seconds);
    });

    new prom.Gauge({
      name: 'ce_open_streams',
      help: 'Streams open now, by kind: listen (subscriptions/listen), page (the room’s page listening) and get_mcp (GET /mcp)',
      labelNames: ['kind'],
      registers,
      collect() {
        for (const [kind, n] of Object.entries(streams.openByKind())) this.set({ kind }, n);
      },
    });
    new prom.Gauge({
      name: 'ce_open_streams_limit',
      help: 'The most streams the room serves at once, of all kinds (--max-streams, or fewer when its open-file limit leaves less)',
      registers,
    }).set(streams.maxStreams);
    countedElsewhere(
      prom,
      this.registry,
      'ce_listeners_dropped_total',
      'Streams dropped because they fell behind the room’s changes (their queue filled)',
      () => streams.laggingDrops,
    );

    // What the sidecar holds, read once per scrape for every gauge below.
    const holding = () => (this.held ??= roomStatus(room));
    const firstEventId = roomStatus(room).events.last_id;
    countedElsewhere(
      prom,
      this.registry,
      'ce_events_published_total',
      'State changes committed and published to live listeners (events), since the room process started',
      () => holding().events.last_id - firstEventId,
    );
    new prom.Gauge({
      name: 'ce_handoffs',
      help: 'Handoffs by status',
      labelNames: ['status'],
      registers,
      collect() {
        this.reset();
        for (const [status, n] of Object.entries(holding().handoffs)) this.set({ status }, n);
      },
    });
    new prom.Gauge({
      name: 'ce_tasks_active',
      help: 'Tasks working or waiting for input; a handoff_create past ce_tasks_limit is refused (limit_reached)',
      registers,
      collect() {
        this.set(holding().tasks.active);
      },
    });
    new prom.Gauge({
      name: 'ce_tasks_limit',
      help: 'The most tasks the room lets be active at once',
      registers,
      collect() {
        this.set(holding().tasks.limit);
      },
    });
    new prom.Gauge({
      name: 'ce_proposals_open',
      help: 'Open proposals, by whether they merge onto the current revision (mergeable) or not (conflicts)',
      labelNames: ['state'],
      registers,
      collect() {
        const { open_proposals: open, conflicted_proposals: conflicted } = holding();
        this.set({ state: 'mergeable' }, open - conflicted);
        this.set({ state: 'conflicts' }, conflicted);
      },
    });
    new prom.Gauge({
      name: 'ce_event_ring_events',
      help: 'Events kept in the event ring (the newest are kept; older ones are pruned)',
      registers,
      collect() {
        this.set(holding().events.in_ring);
      },
    });
    new prom.Gauge({
      name: 'ce_sidecar_bytes',
      help: 'The sidecar’s size on disk, its write-ahead log included',
      registers,
      collect() {
        this.set(holding().sidecar.bytes);
      },
    });
  }

  observeRequest({ door, method, route, status, seconds }: RequestFacts): void {
    const series = this.series.get([route, method, door], () => ({
      duration: this.durations.series({ door, method, route }),
      byStatus: new Map(),
    }));
    series.byStatus.set(status, (series.byStatus.get(status) ?? 0) + 1);
    this.durations.observe(series.duration, seconds);
  }

  /** The exposition text, read fresh: prom-client's metrics, then the request durations. */
  async text(): Promise<string> {
    this.held = null;
    const durations = this.durations.text(this.series.values().map((s) => s.duration));
    return `${await this.registry.metrics()}${durations}`;
  }
}
