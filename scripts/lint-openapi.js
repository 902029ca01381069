// Part of npm test: the generated OpenAPI document against Redocly's
// recommended rules (redocly.yaml). Redocly's own banners are kept back;
// its whole report is shown only when it finds something.
import { spawnSync } from 'node:child_process';

const DOCUMENT = 'generated/openapi.json';
const lint = spawnSync(process.execPath, ['node_modules/@redocly/cli/bin/cli.js', 'lint', DOCUMENT], {
  encoding: 'utf8',
  env: { ...process.env, REDOCLY_TELEMETRY: 'off', NO_COLOR: '1' },
});
const report = `${lint.stdout ?? ''}${lint.stderr ?? ''}`;
// Warnings pass redocly's exit code; here they fail.
if (
  lint.status === 0 &&
  !/\bwarnings?\b/i.test(report.replace(/Deprecation warning: Node\.js \d+ support is ending/, ''))
) {
  console.log(`${DOCUMENT}: a valid OpenAPI document, with no warning under Redocly's recommended rules.`);
} else {
  process.stderr.write(report);
  process.exit(lint.status || 1);
}
