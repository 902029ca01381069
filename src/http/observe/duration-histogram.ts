// The request-duration histogram, counted by the room and written in
// Prometheus' text format when scraped. prom-client's Histogram checks and
// hashes the labels of every observation, which was most of what the
// metrics cost a request; here a request adds one to a bucket of a series it
// already holds (the series are the room's own bounded set of labels).

/** One series: its labels, the count of observations at or below each bound, their sum and count. */
export interface DurationSeries {
  readonly labels: Readonly<Record<string, string>>;
  readonly buckets: number[];
  sum: number;
  count: number;
}

/** A label value as the text format writes it: backslash, double quote and newline escaped. */
const escaped = (value: string): string => value.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));

export class DurationHistogram {
  constructor(
    readonly name: string,
    private readonly help: string,
    /** Upper bounds in seconds, ascending; +Inf is implied. */
    private readonly bounds: readonly number[],
  ) {}

  series(labels: Record<string, string>): DurationSeries {
    return { labels, buckets: this.bounds.map(() => 0), sum: 0, count: 0 };
  }

  observe(series: DurationSeries, seconds: number): void {
    for (let i = 0; i < this.bounds.length; i++) {
      if (seconds <= this.bounds[i]!) {
        series.buckets[i]! += 1;
        break;
      }
    }
    series.sum += seconds;
    series.count += 1;
  }

  /** The histogram's lines (HELP, TYPE, then per series its cumulative buckets, sum and count), each ended by a newline. */
  text(all: Iterable<DurationSeries>): string {
    const lines = [`# HELP ${this.name} ${this.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`];
    lines.push(`# TYPE ${this.name} histogram`);
    for (const { labels, buckets, sum, count } of all) {
      const named = Object.entries(labels).map(([key, value]) => `${key}="${escaped(value)}"`);
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += buckets[i]!;
        lines.push(`${this.name}_bucket{${[...named, `le="${bound}"`].join(',')}} ${cumulative}`);
      });
      lines.push(`${this.name}_bucket{${[...named, 'le="+Inf"'].join(',')}} ${count}`);
      lines.push(`${this.name}_sum{${named.join(',')}} ${sum}`);
      lines.push(`${this.name}_count{${named.join(',')}} ${count}`);
    }
    return `${lines.join('\n')}\n`;
  }
}
