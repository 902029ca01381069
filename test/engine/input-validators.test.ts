// The validators a room checks requests with (generated/input-validators.js)
// are read one by one, each at its first call, from a CommonJS module of its
// own (generated/input-validators/TITLE.cjs): a room's start compiles none of
// them. They must judge exactly as every schema's validators
// (generated/validators.js) do, errors included.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, test } from 'vitest';
import * as every from '../../generated/validators.js';
import * as inputs from '../../generated/input-validators.js';

const generated = path.resolve(import.meta.dirname, '../../generated');

test("a validator's module is read at its first call, and no other", () => {
  // In a process of its own: this one's tests may have called validators already.
  const script = `
    import { createRequire } from 'node:module';
    const require = createRequire(${JSON.stringify(path.join(generated, 'x.js'))});
    const read = () => Object.keys(require.cache).filter((f) => f.includes('input-validators')).map((f) => f.split(/[\\\\/]/).pop());
    const v = await import(${JSON.stringify(pathToFileURL(path.join(generated, 'input-validators.js')).href)});
    const before = read();
    const verdicts = [v.validateTaskRefInput({ task_id: 'tk_1' }), v.validateTaskRefInput({})];
    console.log(JSON.stringify({ before, after: read(), verdicts, errors: v.validateTaskRefInput.errors }));
  `;
  const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
  expect(out.before).toEqual([]);
  expect(out.after).toEqual(['TaskRefInput.cjs']);
  expect(out.verdicts).toEqual([true, false]);
  expect(out.errors).toEqual([
    expect.objectContaining({ keyword: 'required', params: { missingProperty: 'task_id' } }),
  ]);
});

const samples: unknown[] = [
  {},
  null,
  'text',
  [],
  { unexpected: 1 },
  { task_id: '' },
  { task_id: 'tk_1', extra: true },
  { handoff_id: 'ho_1', summary: '\u202eabc', assignee: 'bob' },
];

test('each judges every input as the validator of its schema among every schema does, errors and defaults included', () => {
  const names = Object.keys(inputs).filter((name) => name.startsWith('validate'));
  expect(names.length).toBeGreaterThan(30);
  for (const name of names) {
    const lazy = (inputs as Record<string, (data: unknown) => boolean>)[name]! as ((data: unknown) => boolean) & {
      errors: unknown;
    };
    const whole = (every as Record<string, unknown>)[name] as typeof lazy;
    expect(whole, name).toBeTypeOf('function');
    for (const sample of samples) {
      const [a, b] = [structuredClone(sample), structuredClone(sample)];
      expect(lazy(a), `${name}(${JSON.stringify(sample)})`).toBe(whole(b));
      expect(lazy.errors, `${name}(${JSON.stringify(sample)}) errors`).toEqual(whole.errors);
      expect(a, `${name}(${JSON.stringify(sample)}) with defaults`).toEqual(b);
    }
  }
});
