// Reads a room's GET /metrics as Prometheus does: a strict parser of the
// text exposition format (version 0.0.4) that refuses any line it does not
// understand, a sample before its family's TYPE, or a histogram without
// its count and sum; and finds one series' value in what it parsed.
import { expect } from 'vitest';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}
export interface Family {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: -?\\d+)?$`);
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)",?/;
const SUFFIXES: Record<Family['type'], string[]> = {
  counter: [''],
  gauge: [''],
  untyped: [''],
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

/** A value as Prometheus reads it (Go's ParseFloat): NaN and Inf in any case. */
function floatOf(text: string): number | undefined {
  const special = /^([+-]?)(inf|nan)$/i.exec(text);
  if (special) return special[2]!.toLowerCase() === 'nan' ? NaN : special[1] === '-' ? -Infinity : Infinity;
  const number = Number(text);
  return text.trim() === '' || Number.isNaN(number) ? undefined : number;
}

function labelsOf(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest !== '') {
    const match = LABEL.exec(rest);
    if (!match) throw new Error(`bad labels in ${JSON.stringify(line)}`);
    labels[match[1]!] = match[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    rest = rest.slice(match[0].length);
  }
  return labels;
}

export function parsePrometheusText(text: string): Family[] {
  const families = new Map<string, Family>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (meta) {
      const [, kind, name, rest] = meta as unknown as [string, string, string, string];
      const family = families.get(name) ?? { name, help: '', type: 'untyped' as const, samples: [] };
      if (kind === 'HELP') family.help = rest;
      else if (rest in SUFFIXES) family.type = rest as Family['type'];
      else throw new Error(`unknown type in ${JSON.stringify(line)}`);
      families.set(name, family);
      continue;
    }
    const sample = SAMPLE.exec(line);
    if (!sample) throw new Error(`not a sample: ${JSON.stringify(line)}`);
    const [, name, labels, value] = sample as unknown as [string, string, string | undefined, string];
    const family = [...families.values()].find((f) => SUFFIXES[f.type].some((end) => f.name + end === name));
    if (!family) throw new Error(`a sample of no declared family: ${JSON.stringify(line)}`);
    const number = floatOf(value);
    if (number === undefined) throw new Error(`bad value in ${JSON.stringify(line)}`);
    family.samples.push({ name, labels: labelsOf(labels ?? '', line), value: number });
  }
  for (const family of families.values()) {
    if (family.type !== 'histogram') continue;
    const counts = family.samples.filter((s) => s.name.endsWith('_count')).length;
    const sums = family.samples.filter((s) => s.name.endsWith('_sum')).length;
    if (counts !== sums) throw new Error(`${family.name}: a histogram series without its count or sum`);
  }
  return [...families.values()];
}

export async function scrape(baseUrl: string, token: string): Promise<Family[]> {
  const response = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parsePrometheusText(await response.text());
}

const sameLabels = (sample: Sample, labels: Record<string, string>) =>
  Object.keys(sample.labels).length === Object.keys(labels).length &&
  Object.entries(labels).every(([key, value]) => sample.labels[key] === value);

function sampleOf(families: Family[], name: string, labels: Record<string, string>): number {
  for (const family of families) {
    const sample = family.samples.find((s) => s.name === name && sameLabels(s, labels));
    if (sample) return sample.value;
  }
  return 0;
}

/** A counter's or gauge's value, a histogram's count (its `_count`); 0 when the series does not exist (yet). */
export function valueOf(families: Family[], name: string, labels: Record<string, string> = {}): number {
  const histogram = families.find((f) => f.name === name)?.type === 'histogram';
  return sampleOf(families, histogram ? `${name}_count` : name, labels);
}

/** A histogram's sum. */
export const sumOf = (families: Family[], name: string, labels: Record<string, string> = {}): number =>
  sampleOf(families, `${name}_sum`, labels);
