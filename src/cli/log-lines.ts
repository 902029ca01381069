// JSON log lines gathered and written to stderr together: a line is only
// kept in an array until 64 KiB are waiting or 200 ms have passed, then all
// go in one write through pino's own destination (sonic-boom, which retries
// a full pipe). Writing each line, or handing each to sonic-boom, cost the
// cheapest requests a fifth of their rate. Whatever waits is written when
// the process exits, a fail-stop included; only a SIGKILL loses the last
// 200 ms of lines.
interface Destination {
  write(text: string): unknown;
  flushSync(): void;
}

const MAX_WAITING = 64 * 1024;
const MAX_WAIT_MS = 200;

export function batchedLines(destination: Destination): { write(line: string): void } {
  let lines: string[] = [];
  let waiting = 0;
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    if (lines.length === 0) return;
    const text = lines.join('');
    lines = [];
    waiting = 0;
    destination.write(text);
  };
  process.on('exit', () => {
    flush();
    destination.flushSync();
  });
  return {
    write(line) {
      lines.push(line);
      waiting += line.length;
      if (waiting >= MAX_WAITING) flush();
      else timer ??= setTimeout(flush, MAX_WAIT_MS).unref();
    },
  };
}
