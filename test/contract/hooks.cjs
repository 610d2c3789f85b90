// Dredd hooks: authenticate every transaction, use real ids, and shape the requests that provoke the
// documented error responses. Dredd gives every documented status of an operation the same request
// (the document's example), so each status needs its own request; see scripts/run-dredd.ts.
const hooks = require('hooks');

const KEY = process.env.DOCEX_KEY;
const SCOPELESS_KEY = process.env.DOCEX_SCOPELESS_KEY;
const PDF = process.env.DOCEX_SAMPLE_PDF_BASE64;
const EXAMPLE_EXTRACTION = 'ext_01JDQ8ZK3N4XW5V6B7C8D9E0FG';
const EXAMPLE_TEMPLATE = 'tpl_01JDQ9A1B2C3D4E5F6G7H8J9K0';
const EXAMPLE_WEBHOOK = 'wh_01JDQAB1C2D3E4F5G6H7J8K9M0';
const ids = { extraction: null, template: null, webhook: null };
// The server runs with WEBHOOK_ALLOW_PRIVATE=true; nothing listens on port 9, so deliveries simply fail.
const WEBHOOK = { url: 'http://127.0.0.1:9/docex', events: ['extraction.completed', 'extraction.failed'] };

const TEMPLATE = {
  name: 'Contract test template',
  keywords: ['ACME'],
  // total_amount in invoice2data's bare-regex shorthand.
  fields: { invoice_number: { parser: 'regex', regex: 'Invoice\\s+No\\.?\\s*:?\\s*([A-Z0-9-]+)' }, total_amount: 'Total:\\s*([\\d.,]+)' },
  options: { currency: 'EUR' },
};

/** name: "/v1/extractions > Create an extraction > 201 > application/json" */
function parse(name) {
  const [path, , status] = name.split(' > ');
  return { path, status: Number(status) };
}

// Statuses that cannot be provoked on demand against a healthy server (a quota exhausted mid-run,
// an internal fault, an unavailable dependency, a 28 MiB body): the vitest API suites cover them.
const NOT_REPLAYED = new Set([413, 429, 500, 503]);

hooks.beforeEach((transaction, done) => {
  const { path, status } = parse(transaction.name);
  const request = transaction.request;
  const method = request.method;
  // Nor a create whose extraction is deleted while it is processing (a race): test/api/data.test.ts.
  transaction.skip = NOT_REPLAYED.has(status) || (request.method === 'POST' && path === '/v1/extractions' && status === 404);
  if (!path.startsWith('/v1')) return done();

  request.headers.Authorization = `Bearer ${KEY}`;
  // Dredd sends every header parameter's example; these two change what the request means, so they
  // are sent only by the transactions that are about them (202 and 409).
  delete request.headers.Prefer;
  delete request.headers['Idempotency-Key'];
  if (method === 'POST' && path === '/v1/extractions') {
    request.body = JSON.stringify({ file: PDF, file_name: 'invoice.pdf' });
  }
  if (method === 'POST' && path === '/v1/templates') request.body = JSON.stringify(TEMPLATE);
  if (method === 'POST' && path === '/v1/webhooks') request.body = JSON.stringify(WEBHOOK);
  if (method === 'PATCH') request.body = JSON.stringify({ keywords: ['ACME', 'Invoice'] });
  if (status < 300) {
    if (ids.extraction) transaction.fullPath = transaction.fullPath.replace(EXAMPLE_EXTRACTION, ids.extraction);
    if (ids.template) transaction.fullPath = transaction.fullPath.replace(EXAMPLE_TEMPLATE, ids.template);
    if (ids.webhook) transaction.fullPath = transaction.fullPath.replace(EXAMPLE_WEBHOOK, ids.webhook);
  }

  switch (status) {
    case 400:
      if (request.body) request.body = JSON.stringify({ file_name: 'missing-file.pdf' });
      else if (/\/v1\/(extractions|templates|webhooks)\//.test(transaction.fullPath)) transaction.fullPath = transaction.fullPath.replace(/(ext|tpl|wh)_[0-9A-Z]+/, '$1_malformed');
      else transaction.fullPath = `${transaction.fullPath.split('?')[0]}?limit=0`;
      break;
    case 202:
      request.headers.Prefer = 'respond-async';
      break;
    case 401:
      delete request.headers.Authorization;
      break;
    case 403:
      request.headers.Authorization = `Bearer ${SCOPELESS_KEY}`;
      break;
    case 415:
      request.headers['Content-Type'] = 'text/plain';
      break;
    case 422:
      request.body = JSON.stringify({ file: 'R0lGODlhAQABAAAAACw=', file_name: 'picture.gif' });
      break;
    case 409: {
      // A first request takes the Idempotency-Key with one body; the transaction reuses it with another.
      const key = `dredd-${Date.now()}`;
      const url = `${transaction.protocol}//${transaction.host}:${transaction.port}${transaction.fullPath}`;
      const first = JSON.parse(request.body);
      fetch(url, {
        method: 'POST',
        headers: { Authorization: request.headers.Authorization, 'Content-Type': 'application/json', 'Idempotency-Key': key },
        body: JSON.stringify(path === '/v1/extractions' ? { file: PDF, file_name: 'first.pdf' } : first),
      }).then(
        () => {
          request.headers['Idempotency-Key'] = key;
          request.body = JSON.stringify(path === '/v1/extractions' ? { file: PDF, file_name: 'second.pdf' } : { ...first, url: `${first.url}?again` });
          done();
        },
        (err) => {
          transaction.fail = `could not send the first request: ${err.message}`;
          done();
        },
      );
      return;
    }
    default:
  }
  done();
});

hooks.after('/v1/extractions > Create an extraction > 201 > application/json', (transaction, done) => {
  ids.extraction = JSON.parse(transaction.real.body).id;
  done();
});

hooks.after('/v1/webhooks > Create a webhook > 201 > application/json', (transaction, done) => {
  ids.webhook = JSON.parse(transaction.real.body).id;
  done();
});

hooks.after('/v1/templates > Create a template > 201 > application/json', (transaction, done) => {
  ids.template = JSON.parse(transaction.real.body).id;
  done();
});

// Gavel compares Content-Type as a whole string against the document's media type, so parameters
// such as `charset=utf-8` or Prometheus' `version=0.0.4` would fail an otherwise matching response.
// The document defines media types; parameters are stripped before validation.
hooks.beforeEachValidation((transaction, done) => {
  const headers = transaction.real.headers;
  if (headers['content-type']) headers['content-type'] = headers['content-type'].split(';')[0].trim();
  done();
});

// Gavel compares text bodies byte for byte with the example; the metrics and the HTML page change with
// every run. They are checked for what makes them right here, then exempted from the exact comparison.
const TEXT_BODIES = {
  '/metrics > Prometheus metrics > 200 > text/plain': /^# HELP docex_http_requests_total /m,
  '/docs > API reference page > 200 > text/html': /<div id="swagger-ui"><\/div>/,
};
for (const [name, pattern] of Object.entries(TEXT_BODIES)) {
  hooks.beforeValidation(name, (transaction, done) => {
    if (!pattern.test(transaction.real.body)) {
      transaction.fail = `body does not match ${pattern}`;
    } else {
      transaction.expected.body = transaction.real.body;
    }
    done();
  });
}
