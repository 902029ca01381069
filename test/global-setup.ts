// Runs once per test run, before any test file.
export default function setup(): void {
  if (!process.env.MCP_SCHEMA_DIR) {
    console.log(
      'MCP contract tests check the official SDK schemas only: set MCP_SCHEMA_DIR to a folder of the official MCP JSON Schema files to check those too.',
    );
  }
}
