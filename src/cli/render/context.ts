/** What a renderer knows of the command it answers. */
export interface RenderContext {
  /** How a command line names the room: its FILE, or `--url URL`. */
  room: string;
  /** The operation's input, as the command built it. */
  input: Record<string, unknown>;
  /** The command line for the next page: the command as given, with these flags replaced. */
  more(flags: Record<string, string | number>): string;
}
