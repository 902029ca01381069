// The request-duration histogram the room counts itself: what it writes is
// a histogram as Prometheus reads it (cumulative buckets, +Inf equal to the
// count, the sum), label values escaped.
import { expect, test } from 'vitest';
import { DurationHistogram } from '../../src/http/observe/duration-histogram.js';
import { parsePrometheusText, sumOf, valueOf } from '../helpers/prometheus.js';

test('cumulative buckets, +Inf equal to the count, the sum, and escaped labels', () => {
  const histogram = new DurationHistogram('ce_test_seconds', 'How long\nit took', [0.01, 0.1, 1]);
  const fast = histogram.series({ route: 'tasks/get' });
  const odd = histogram.series({ route: 'a "quoted" \\ route\n' });
  for (const seconds of [0.005, 0.01, 0.05, 2]) histogram.observe(fast, seconds);
  histogram.observe(odd, 0.5);

  const [family] = parsePrometheusText(histogram.text([fast, odd]));
  expect(family).toMatchObject({ name: 'ce_test_seconds', type: 'histogram', help: 'How long\\nit took' });
  const bucket = (route: string, le: string) =>
    family!.samples.find((s) => s.name === 'ce_test_seconds_bucket' && s.labels.route === route && s.labels.le === le)!
      .value;
  expect(['0.01', '0.1', '1', '+Inf'].map((le) => bucket('tasks/get', le))).toEqual([2, 3, 3, 4]);
  expect(valueOf([family!], 'ce_test_seconds', { route: 'tasks/get' })).toBe(4);
  expect(sumOf([family!], 'ce_test_seconds', { route: 'tasks/get' })).toBeCloseTo(2.065);
  expect(['0.01', '0.1', '1', '+Inf'].map((le) => bucket('a "quoted" \\ route\n', le))).toEqual([0, 0, 1, 1]);
});
