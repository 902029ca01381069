// Live updates, as the design note's recovery steps say: list the views
// (MCP resources/list), open subscriptions/listen for them (a streaming
// fetch, its server-sent events parsed by eventsource-parser), and re-read a
// view over REST whenever the room says it changed. The stream is a hint,
// never a cursor: when it drops, the page reconnects with a growing delay
// and, once the room acknowledges the new listen, reads everything again.
import { createParser } from 'eventsource-parser';
import { isSignedOut, MCP_URL, RoomError, type RoomApi } from './api.js';

export type View = 'artifact' | 'handoffs' | 'proposals' | 'history';

export interface LiveHandlers {
  /** The room acknowledged a listen: everything may have changed since the last one. */
  connected(): void;
  /** The room said this view changed. */
  changed(view: View): void;
  /** The stream dropped; the page tries again in `delayMs`. */
  disconnected(delayMs: number): void;
  /** The session was refused. */
  signedOut(): void;
}

interface Resource {
  uri: string;
  name: string;
  mimeType?: string;
}

const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 8000;

/** Which view a resource is: its name for the JSON views, the artifact for the Markdown one. */
function viewOf(resource: Resource): View | null {
  if (resource.name === 'handoffs' || resource.name === 'proposals' || resource.name === 'history')
    return resource.name;
  return resource.mimeType === 'text/markdown' ? 'artifact' : null;
}

/** Listens until stop(); calls the handlers as the room speaks. */
export function startLive(api: RoomApi, handlers: LiveHandlers): { stop(): void } {
  const abort = new AbortController();
  let delay = FIRST_DELAY_MS;

  async function listenOnce(): Promise<void> {
    const { resources } = await api.mcp<{ resources: Resource[] }>('resources/list');
    const views = new Map<string, View>();
    for (const resource of resources) {
      const view = viewOf(resource);
      if (view) views.set(resource.uri, view);
    }
    let response: Response;
    try {
      response = await fetch(
        MCP_URL,
        api.mcpRequest(
          'subscriptions/listen',
          { notifications: { resourceSubscriptions: [...views.keys()] } },
          abort.signal,
        ),
      );
    } catch (error) {
      if (abort.signal.aborted) return;
      throw new RoomError(0, 'unreachable', String(error));
    }
    if (response.status === 401) throw new RoomError(401, 'unauthorized', 'the session was not accepted');
    if (!response.ok || !response.body)
      throw new RoomError(response.status, 'listen_refused', 'the listen was refused');
    // The room ends a listen with an error answer when its session ends (revoked, expired, removed).
    let sessionEnded = false;
    const parser = createParser({
      onEvent(event) {
        let message: { method?: string; params?: { uri?: string }; error?: { data?: { reason?: string } } };
        try {
          message = JSON.parse(event.data);
        } catch {
          return;
        }
        if (message.method === 'notifications/subscriptions/acknowledged') {
          delay = FIRST_DELAY_MS;
          handlers.connected();
        } else if (message.method === 'notifications/resources/updated' && message.params?.uri) {
          const view = views.get(message.params.uri);
          if (view) handlers.changed(view);
        } else if (message.error?.data?.reason === 'session_ended') {
          sessionEnded = true;
        }
      },
    });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(value);
      }
    } catch {
      // The connection broke: the loop reconnects.
    }
    if (sessionEnded) throw new RoomError(401, 'unauthorized', 'the session ended');
  }

  void (async () => {
    while (!abort.signal.aborted) {
      try {
        await listenOnce();
      } catch (error) {
        if (isSignedOut(error)) {
          handlers.signedOut();
          return;
        }
      }
      if (abort.signal.aborted) return;
      handlers.disconnected(delay);
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, MAX_DELAY_MS);
    }
  })();

  return { stop: () => abort.abort() };
}
