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
  docex key create --workspace ws_... --name NAME --scopes extractions:read,extractions:write[,templates:read,templates:write,webhooks:read,webhooks:write]
  docex key list --workspace ws_...
  docex key revoke key_...

Templates (talk to the database in DATABASE_URL):
  docex template import FILE.yml|json [--workspace ws_...]
                                   convert an invoice2data template and store it in the workspace
                                   (the only one when --workspace is left out); prints it as JSON
  docex template export tpl_...    print a template as YAML, the body POST /v1/templates takes

Output is JSON on stdout (YAML for template export); errors go to stderr with a non-zero exit code.

Extraction:
  docex extract FILE [--template tpl_...] [--json]   send FILE to the server at DOCEX_URL (default http://127.0.0.1:8080)
                                                     with the key in DOCEX_API_KEY; prints a table of fields, or JSON
  docex extract FILE --local [--template tpl_builtin_...] [--json]
                                                     run the pipeline in this process, no server needed

Workers (configured by the same environment as the server: DATABASE_URL, REDIS_URL, OCR_WORKERS, ...):
  docex worker                                       read queued extractions and send webhooks, without an HTTP
                                                     server, until SIGTERM; API instances then run with ROLE=api

Exit codes: 0 success, 1 extraction failed or server/database error, 2 wrong usage.`;
