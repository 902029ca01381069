// The systemd units in examples/ are units systemd takes (systemd-analyze
// verify, where the machine has it), and the service keeps its sandbox: the
// whole system read-only but the room's directory, restarted after a
// failure, files the owner's only, and open files enough for its streams.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { DEFAULT_MAX_STREAMS } from '../../src/http/mcp/stream-kinds.js';
import { KEPT_FROM_STREAMS } from '../../src/http/open-files.js';

const examples = path.resolve(import.meta.dirname, '../../examples');
const UNITS = ['commonroom.service', 'commonroom-backup.service', 'commonroom-backup.timer'];

/** A unit's settings, `Key=value` lines by key. */
const settingsOf = (unit: string): Map<string, string[]> => {
  const settings = new Map<string, string[]>();
  for (const line of readFileSync(path.join(examples, unit), 'utf8').split('\n')) {
    const match = /^(\w+)=(.*)$/.exec(line);
    if (match) settings.set(match[1]!, [...(settings.get(match[1]!) ?? []), match[2]!]);
  }
  return settings;
};

test('the room’s service keeps its sandbox and comes back after a failure', () => {
  const service = settingsOf('commonroom.service');
  const directory = service.get('WorkingDirectory')![0]!;
  expect(
    Object.fromEntries([...service].filter(([key]) => /^(Protect|ReadWrite|Restart$|NoNew|UMask)/.test(key))),
  ).toMatchObject({
    ProtectSystem: ['strict'],
    ReadWritePaths: [directory],
    ProtectHome: ['true'],
    NoNewPrivileges: ['true'],
    Restart: ['on-failure'],
    UMask: ['0077'],
  });
  expect(service.get('ExecStart')![0]).toMatch(/\/ce serve \S+\.md\b/);
});

test('the room’s service may open files enough for the streams a room serves by default', () => {
  const limit = Number(settingsOf('commonroom.service').get('LimitNOFILE')?.[0]);
  expect(limit - KEPT_FROM_STREAMS).toBeGreaterThanOrEqual(DEFAULT_MAX_STREAMS);
});

test.runIf(existsSync('/usr/bin/systemd-analyze'))(
  'systemd-analyze verify takes every unit (ce itself aside, not installed here)',
  () => {
    const said = spawnSync('systemd-analyze', ['verify', ...UNITS.map((unit) => path.join(examples, unit))], {
      encoding: 'utf8',
    }).stderr;
    const problems = said
      .split('\n')
      .filter((line) => line.trim() !== '' && !/\/usr\/local\/bin\/ce is not executable/.test(line));
    expect(problems).toEqual([]);
  },
);
