// JSON log lines gathered and written to stderr together: each line is
// copied, as UTF-8, into one 64 KiB buffer at once, and the buffer goes out
// in one write through pino's own destination (sonic-boom, which retries a
// full pipe) when full or 200 ms after its first line. Writing each line
// cost the cheapest requests a fifth of their rate; keeping the lines as
// strings until the write cost nearly as much, in garbage collection (they
// outlive the young generation). Whatever waits is written when the process
// exits, a fail-stop included; only a SIGKILL loses the last 200 ms of lines.
export interface Destination {
  write(bytes: Buffer): unknown;
  flushSync(): void;
}

const BUFFER_BYTES = 64 * 1024;
const MAX_WAIT_MS = 200;

export function batchedLines(destination: Destination): { write(line: string): void } {
  const buffer = Buffer.allocUnsafe(BUFFER_BYTES);
  let used = 0;
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    if (used === 0) return;
    destination.write(Buffer.from(buffer.subarray(0, used))); // a copy: the buffer is filled again at once
    used = 0;
  };
  process.on('exit', () => {
    flush();
    destination.flushSync();
  });
  return {
    write(line) {
      // A UTF-16 unit is at most 3 bytes of UTF-8: a line that might not fit goes after what waits.
      if (used + line.length * 3 > BUFFER_BYTES) {
        flush();
        if (line.length * 3 > BUFFER_BYTES) return void destination.write(Buffer.from(line));
      }
      used += buffer.write(line, used);
      timer ??= setTimeout(flush, MAX_WAIT_MS).unref();
    },
  };
}
