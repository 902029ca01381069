// The listening side of the fan-out benchmark, run as its own process
// (pinned to the load core): opens N streams, says {"ready":true} once every
// stream has its first frame, waits for "go" on stdin (the parent measures
// the idle server meanwhile), sends the trigger request and prints how long
// it took until the last stream received its frame.
import http from 'node:http';
import { createInterface } from 'node:readline';

export interface ListenersConfig {
  origin: string;
  count: number;
  /** The request that opens one stream. */
  open: { method: 'GET' | 'POST'; path: string; headers: Record<string, string>; body?: string };
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

let opened = 0;
let got = 0;
let armed = false;
let onOpened: () => void = () => {};
let onAllGot: () => void = () => {};
const streams: Stream[] = [];

function openOne(): Promise<void> {
  return new Promise((resolve, reject) => {
    const stream = { text: '', opened: false, got: false } as Stream;
    stream.request = http.request(
      { agent, hostname, port, method: config.open.method, path: config.open.path, headers: config.open.headers },
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
            if (++got === config.count) onAllGot();
          }
        });
      },
    );
    stream.request.on('error', (error) => {
      if (!armed || !stream.got) reject(error);
    });
    streams.push(stream);
    stream.request.end(config.open.body);
  });
}

// A hundred at a time: the listen backlog is not what is measured.
for (let i = 0; i < config.count; i += 100) {
  await Promise.all(Array.from({ length: Math.min(100, config.count - i) }, openOne));
}
if (opened < config.count) await new Promise<void>((resolve) => (onOpened = resolve));
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);

const lines = createInterface({ input: process.stdin });
await new Promise<void>((resolve) => lines.once('line', () => resolve()));
armed = true;
const allGot = new Promise<void>((resolve) => (onAllGot = resolve));
const started = performance.now();
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
await allGot;
const ms = performance.now() - started;
process.stdout.write(`${JSON.stringify({ ms })}\n`);
lines.close();
for (const stream of streams) stream.request.destroy();
process.exit(0);
