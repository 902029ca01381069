// npm run build (and npm ci, through prepare): bundles the ce command line
// and the npm start example into dist/ with esbuild. Code a command loads
// only when it runs (the engine, the HTTP server) goes to chunks of its
// own, so `ce --help` reads neither SQLite nor the validators.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

rmSync('dist', { recursive: true, force: true }); // no chunk of an earlier build stays behind

await build({
  entryPoints: { ce: 'src/cli/bin.ts', 'start-example': 'scripts/start-example.ts' },
  outdir: 'dist',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});
