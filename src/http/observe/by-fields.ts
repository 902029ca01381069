// What the log and the metrics keep per kind of request, found by its
// fields through a map per field. Joining the fields into one key made a
// new string to hash for every request: a fifth of what a request's log
// line cost (measured alone).

type Level<V> = Map<unknown, Level<V> | V>;

export class ByFields<V> {
  private root: Level<V> = new Map();
  private kept: V[] = [];

  /** `limit`: kinds kept at once; past that, all are dropped and made again as they come. */
  constructor(private readonly limit = Infinity) {}

  /** The value kept for these fields (always as many, in the same order), made by `make` when there is none. */
  get(fields: readonly unknown[], make: () => V): V {
    if (this.kept.length >= this.limit) {
      this.root = new Map();
      this.kept = [];
    }
    let level = this.root;
    const last = fields.length - 1;
    for (let i = 0; i < last; i++) {
      let next = level.get(fields[i]);
      if (next === undefined) level.set(fields[i], (next = new Map()));
      level = next as Level<V>;
    }
    let value = level.get(fields[last]) as V | undefined;
    if (value === undefined) {
      level.set(fields[last], (value = make()));
      this.kept.push(value);
    }
    return value;
  }

  /** Every value kept, in the order they were made. */
  values(): readonly V[] {
    return this.kept;
  }
}
