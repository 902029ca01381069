// The layers of src/ and page/, checked by `npm test` (depcruise): no import
// cycles anywhere, and arrows that only point down. From the top:
//   cli, http (the doors; http/mcp is MCP's Streamable HTTP transport) →
//   mcp (the protocol, no transport) → engine → store → errors; bus and
//   generated/ are leaves any layer may use. The page is a browser client: it imports only
//   generated/ and itself.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'An import cycle hides which layer a module belongs to.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'engine-knows-no-door',
      severity: 'error',
      comment: 'The engine knows nothing of HTTP, JSON-RPC or the command line.',
      from: { path: '^src/engine/' },
      to: { path: ['^src/(http|cli|mcp)/', '^node_modules/(koa|@koa|@modelcontextprotocol)/', '^(node:)?https?$'] },
    },
    {
      name: 'doors-run-operations-through-the-runner',
      severity: 'error',
      comment:
        'A door reaches the engine through its index (runOperation and what is not an operation) and never calls an operation’s function itself: the runner checks input and who may act first.',
      from: { path: '^(src/(http|cli|mcp)/|scripts/)' },
      to: { path: '^src/engine/', pathNot: '^src/engine/(index|operations|check-input)\\.ts$' },
    },
    {
      name: 'mcp-core-knows-no-transport',
      severity: 'error',
      comment: 'src/mcp/ is the protocol: methods, results and JSON-RPC errors. Framing and sending are a transport’s.',
      from: { path: '^src/mcp/' },
      to: { path: ['^src/(http|cli)/', '^node_modules/(koa|@koa)/', '^(node:)?https?$'] },
    },
    {
      name: 'store-makes-no-rules',
      severity: 'error',
      comment: 'The store keeps rows; the engine decides. It knows no door, no bus and no engine.',
      from: { path: '^src/store/' },
      to: { path: ['^src/(engine|mcp|http|cli|bus)/', '^node_modules/(koa|@koa)/', '^(node:)?https?$'] },
    },
    {
      name: 'bus-is-a-leaf',
      severity: 'error',
      from: { path: '^src/bus/' },
      to: { path: ['^src/(engine|mcp|store|http|cli)/', '^node_modules/(koa|@koa)/', '^(node:)?https?$'] },
    },
    {
      name: 'errors-are-a-leaf',
      severity: 'error',
      from: { path: '^src/errors\\.ts$' },
      to: { path: '^src/' },
    },
    {
      name: 'http-is-not-the-cli',
      severity: 'error',
      comment: 'The HTTP door and the command line are side by side; neither reaches into the other.',
      from: { path: '^src/http/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'generated-is-emitted-from-schemas',
      severity: 'error',
      from: { path: '^generated/' },
      to: { path: '^(src|page|test)/' },
    },
    {
      name: 'page-is-a-client',
      severity: 'error',
      comment: 'The page reaches the room over REST like any client: generated/ types and its own modules only.',
      from: { path: '^page/' },
      to: { path: '^(src|test)/' },
    },
    {
      name: 'sources-ship-without-tests',
      severity: 'error',
      from: { path: '^(src|page)/' },
      to: { path: '^test/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
