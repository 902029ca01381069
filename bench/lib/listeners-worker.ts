// The listening side of the fan-out benchmark, run as one or more processes
// (pinned to the load core; 10,000 streams are more than one process
// should hold): each opens its share of the streams and says
// {"ready":true} once every one has its first frame; on "arm" (the streams
// sat idle meanwhile) it collects its own garbage, waits for the next frame
// and says {"armed":true}; the one that fires sends the trigger request on
// "fire".
// Each prints when its first and its last stream received the frame, and
// the firing one when it sent the trigger, as milliseconds since 1970 with
// the sub-millisecond part (performance.timeOrigin + now()): the parent
// compares times of several processes on one machine's clock. Its streams
// stay open until "close".
import http from 'node:http';
import { createInterface } from 'node:readline';

export interface ListenersConfig {
  origin: string;
  count: number;
  /** The requests that open streams: stream i is opened with opens[i % opens.length] (a room holds 1,024 per session). */
  opens: { method: 'GET' | 'POST'; path: string; headers: Record<string, string>; body?: string }[];
  /** Whether this process sends the trigger (one of them does). */
  fires: boolean;
  /** Text every stream's first frame holds. */
  openedWhen: string;
  /** The request that makes the server send one frame to every stream. */
  trigger: { method: 'POST'; path: string; headers: Record<string, string>; body?: string };
  /** Text of the frame waited for after the trigger. */
  frameWhen: string;
}

const config = JSON.parse(process.argv[2]!) as ListenersConfig;
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
const { hostname, port } = new URL(config.origin);

interface Stream {
  text: string;
  opened: boolean;
  got: boolean;
  request: http.ClientRequest;
}

const epochMs = () => performance.timeOrigin + performance.now();
let opened = 0;
let got = 0;
let armed = false;
/** When the first stream got the frame (0 until then): what came before it is the server's lead. */
let firstAt = 0;
let onOpened: () => void = () => {};
let onAllGot: () => void = () => {};
const streams: Stream[] = [];

function openOne(open: ListenersConfig['opens'][number]): Promise<void> {
  return new Promise((resolve, reject) => {
    const stream = { text: '', opened: false, got: false } as Stream;
    stream.request = http.request(
      { agent, hostname, port, method: open.method, path: open.path, headers: open.headers },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`stream answered ${res.statusCode}`));
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          stream.text += chunk;
          if (!stream.opened && stream.text.includes(config.openedWhen)) {
            stream.opened = true;
            stream.text = '';
            opened++;
            resolve();
            if (opened === config.count) onOpened();
          } else if (armed && !stream.got && stream.text.includes(config.frameWhen)) {
            stream.got = true;
            if (firstAt === 0) firstAt = epochMs();
            if (++got === config.count) onAllGot();
          }
        });
      },
    );
    stream.request.on('error', (error) => {
      if (!armed || !stream.got) reject(error);
    });
    streams.push(stream);
    stream.request.end(open.body);
  });
}

// A hundred at a time: the listen backlog is not what is measured.
for (let i = 0; i < config.count; i += 100) {
  await Promise.all(
    Array.from({ length: Math.min(100, config.count - i) }, (_, j) =>
      openOne(config.opens[(i + j) % config.opens.length]!),
    ),
  );
}
if (opened < config.count) await new Promise<void>((resolve) => (onOpened = resolve));
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);

const lines = createInterface({ input: process.stdin });
const nextLine = () => new Promise<string>((resolve) => lines.once('line', resolve));
await nextLine(); // arm
// The garbage of opening the streams is collected now, not while the frame is timed: a room's listens (MCP
// requests, their headers and acknowledgements) leave more of it than the anchor's bare GETs, and a collection of
// it in the timed window (4 to 9 ms, in most rounds) was counted as the room's delivery. Run with --expose-gc.
(globalThis as { gc?: () => void }).gc?.();
armed = true;
const allGot = new Promise<void>((resolve) => (onAllGot = resolve));
process.stdout.write(`${JSON.stringify({ armed: true })}\n`);
let firedAt: number | null = null;
if (config.fires) {
  await nextLine(); // fire
  firedAt = epochMs();
  const trigger = http.request({
    agent,
    hostname,
    port,
    method: config.trigger.method,
    path: config.trigger.path,
    headers: config.trigger.headers,
  });
  trigger.on('response', (res) => res.resume());
  trigger.end(config.trigger.body);
}
await allGot;
const lastAt = epochMs();
process.stdout.write(`${JSON.stringify({ firstAt, lastAt, firedAt })}\n`);
await nextLine(); // close: the streams stay open until the parent has measured the server's memory
lines.close();
for (const stream of streams) stream.request.destroy();
process.exit(0);
