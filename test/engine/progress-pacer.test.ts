// The pacer remembers when each task last had a report committed only as
// long as that decides anything (one interval): a room that runs for months
// holds the last interval's tasks, not every task that ever reported.
import { describe, expect, it } from 'vitest';
import { ProgressPacer } from '../../src/engine/progress-pacer.js';

describe('the progress pacer', () => {
  it('remembers a task’s last committed report for one interval, then forgets it', () => {
    const pacer = new ProgressPacer(1000);
    pacer.committed('ta_a', 0);
    pacer.committed('ta_b', 500);
    expect(pacer.lastCommitOf('ta_a')).toBe(0);
    pacer.committed('ta_c', 1000);
    expect(pacer.lastCommitOf('ta_a')).toBeUndefined();
    expect(pacer.lastCommitOf('ta_b')).toBe(500);
    expect(pacer.lastCommitOf('ta_c')).toBe(1000);
    expect(pacer.remembered).toBe(2);
  });

  it('a task reported again is remembered from its newest report, and the ones before it are still forgotten', () => {
    const pacer = new ProgressPacer(1000);
    pacer.committed('ta_x', 0);
    pacer.committed('ta_y', 100);
    pacer.committed('ta_x', 900);
    pacer.committed('ta_z', 1150);
    expect(pacer.lastCommitOf('ta_y')).toBeUndefined();
    expect(pacer.lastCommitOf('ta_x')).toBe(900);
    expect(pacer.remembered).toBe(2);
  });

  it('100,000 tasks reported on over time leave only the last interval’s remembered', () => {
    const pacer = new ProgressPacer(1000);
    for (let i = 0; i < 100_000; i++) pacer.committed(`ta_${i}`, i * 10);
    expect(pacer.remembered).toBe(100);
    expect(pacer.lastCommitOf('ta_99999')).toBe(999_990);
    expect(pacer.lastCommitOf('ta_99899')).toBeUndefined();
  });
});
