// Extract a document with the typed client:
//   DOCEX_API_KEY=dx_live_... npx tsx examples/extract.ts invoice.pdf
import { createClient, DocexError } from 'docex/client';

const client = createClient({ baseUrl: process.env.DOCEX_URL ?? 'http://127.0.0.1:8080', apiKey: process.env.DOCEX_API_KEY ?? '', retry: { maxRetries: 2, maxDelayMs: 30_000 } });
try {
  const extraction = await client.extractFile(process.argv[2] ?? 'invoice.pdf');
  for (const f of extraction.fields) console.log(`${f.field}: ${f.value} (${f.confidence}) ${f.explanation}`);
} catch (err) {
  if (!(err instanceof DocexError)) throw err;
  console.error(`${err.code} (${err.status}): ${err.message} [${err.requestId}]`);
  process.exitCode = 1;
}
