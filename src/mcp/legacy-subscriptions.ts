// The URIs each session subscribed to with resources/subscribe, kept for
// older clients whose GET /mcp stream reports them. A session's URIs go when
// it unsubscribes from its last, and, once the session has ended (revoked,
// expired, its participant removed), at the next sweep. A sweep runs when
// the sessions held have doubled since the last one: a room that runs for
// months holds the URIs of sessions that still hold, and a subscribe costs
// no more as sessions come and go.

/** Sessions held before the first sweep. */
const FIRST_SWEEP_AT = 64;

export class LegacySubscriptions {
  private readonly bySession = new Map<string, Set<string>>();
  private sweepAt = FIRST_SWEEP_AT;

  /** `holds(sessionId)`: whether the session still opens (a sweep forgets those that do not). */
  constructor(private readonly holds: (sessionId: string) => boolean) {}

  /** The URIs the session subscribed to, if any. */
  of(sessionId: string): ReadonlySet<string> | undefined {
    return this.bySession.get(sessionId);
  }

  subscribe(sessionId: string, uri: string): void {
    let uris = this.bySession.get(sessionId);
    if (!uris) {
      if (this.bySession.size >= this.sweepAt) this.sweep();
      this.bySession.set(sessionId, (uris = new Set()));
    }
    uris.add(uri);
  }

  unsubscribe(sessionId: string, uri: string): void {
    const uris = this.bySession.get(sessionId);
    if (!uris?.delete(uri) || uris.size > 0) return;
    this.bySession.delete(sessionId);
  }

  /** Sessions whose URIs are held. */
  get sessions(): number {
    return this.bySession.size;
  }

  private sweep(): void {
    for (const sessionId of this.bySession.keys()) if (!this.holds(sessionId)) this.bySession.delete(sessionId);
    this.sweepAt = Math.max(FIRST_SWEEP_AT, 2 * this.bySession.size);
  }
}
