// ce serve's JSON lines gathered into one buffer: every byte of every line
// reaches the destination once and in order, multi-byte text included, a
// full buffer goes out at once, a line larger than the buffer goes whole,
// and what waits goes out 200 ms after its first line.
import { expect, test, vi } from 'vitest';
import { batchedLines } from '../../src/cli/log-lines.js';

function collected() {
  const writes: Buffer[] = [];
  return { writes, destination: { write: (bytes: Buffer) => writes.push(bytes), flushSync: () => {} } };
}

test('lines reach the destination whole and in order, in writes of at most 64 KiB', () => {
  vi.useFakeTimers();
  try {
    const { writes, destination } = collected();
    const lines = batchedLines(destination);
    const sent: string[] = [];
    for (let i = 0; i < 2000; i++) {
      const line = `{"n":${i},"who":"Zoë 🦊 ${'x'.repeat(i % 97)}"}\n`;
      sent.push(line);
      lines.write(line);
    }
    const huge = `{"big":"${'é'.repeat(40_000)}"}\n`; // 80 KB of UTF-8: more than the buffer
    lines.write(huge);
    sent.push(huge);
    lines.write('{"last":true}\n');
    sent.push('{"last":true}\n');
    expect(writes.length).toBeGreaterThan(2);
    expect(writes.slice(0, -1).every((bytes) => bytes.length <= 64 * 1024 || bytes.toString() === huge)).toBe(true);
    vi.advanceTimersByTime(199);
    const before = writes.length;
    vi.advanceTimersByTime(1);
    expect(writes.length).toBe(before + 1);
    expect(Buffer.concat(writes).toString('utf8')).toBe(sent.join(''));
  } finally {
    vi.useRealTimers();
  }
});

test('a buffer written out is a copy: filling the next one leaves it as it was', () => {
  const { writes, destination } = collected();
  const lines = batchedLines(destination);
  const line = (c: string) => `${c.repeat(15_000)}\n`;
  lines.write(line('a'));
  lines.write(line('b'));
  expect(writes).toHaveLength(0);
  lines.write(line('c')); // might not fit after 30,002 bytes (it is counted at 3 bytes a character): a and b go out
  expect(writes).toHaveLength(1);
  lines.write(line('d'));
  expect(writes[0]!.toString()).toBe(line('a') + line('b'));
});
