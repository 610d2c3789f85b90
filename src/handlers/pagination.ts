/** `limit` as the document defines it (1-100, default 20); the value was already validated. */
export function pageSize(query: Record<string, string | string[] | undefined>): number {
  const raw = query.limit;
  return raw === undefined ? 20 : Number(Array.isArray(raw) ? raw[0] : raw);
}

export function cursor(query: Record<string, string | string[] | undefined>): string | undefined {
  const raw = query.starting_after;
  return Array.isArray(raw) ? raw[0] : raw;
}
