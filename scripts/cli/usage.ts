/** A mistake in how the command was called: printed with the usage, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export const USAGE = `Usage: docex <command> [options]

Workspaces and keys (talk to the database in DATABASE_URL):
  docex workspace create --name NAME --plan free|basic|pro|business|enterprise [--per-minute N --per-day N]
  docex workspace list
  docex workspace set-plan ws_... --plan PLAN [--per-minute N --per-day N]
  docex workspace delete ws_...
  docex key create --workspace ws_... --name NAME --scopes extractions:read,extractions:write[,templates:read,templates:write]
  docex key list --workspace ws_...
  docex key revoke key_...

Output is JSON on stdout; errors go to stderr with a non-zero exit code.`;
