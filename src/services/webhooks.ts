import type { Knex } from 'knex';
import type { components } from '../../generated/openapi.js';
import { invalidRequest, notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { Store } from '../store/index.js';
import { toExtraction, type ExtractionRecord } from '../store/extractions.js';
import type { WebhookEventType } from '../store/webhooks.js';
import { refusedHost } from '../webhooks/address.js';
import { generateSecret } from '../webhooks/signature.js';

type WebhookCreate = components['schemas']['WebhookCreate'];
type WebhookCreated = components['schemas']['WebhookCreated'];
type WebhookEvent = components['schemas']['WebhookEvent'];

/** The URL as given, or the reason it cannot be a webhook's. */
async function checkUrl(raw: string, allowPrivate: boolean): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidRequest('body.url: is not an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidRequest(`body.url: must be http or https, not ${url.protocol.slice(0, -1)}`);
  // Credentials in the URL would be stored and shown in every list; the signature authenticates docex instead.
  if (url.username || url.password) throw invalidRequest('body.url: must not carry a user name or password');
  const refused = await refusedHost(url, allowPrivate);
  if (refused) throw invalidRequest(`body.url: ${refused}`);
  return raw;
}

const EVENT_OF: Record<ExtractionRecord['status'], WebhookEventType | null> = {
  processing: null,
  completed: 'extraction.completed',
  failed: 'extraction.failed',
};

/** Webhooks of a workspace, and the events a finished extraction sends them. */
export function webhookService(store: Store, options: { allowPrivate: boolean }) {
  return {
    async create(workspaceId: string, body: WebhookCreate): Promise<WebhookCreated> {
      const url = await checkUrl(body.url, options.allowPrivate);
      const secret = generateSecret();
      const webhook = await store.webhooks.create({ id: newId('wh'), workspace_id: workspaceId, url, events: [...new Set(body.events)], secret });
      return { ...webhook, secret };
    },
    list: (workspaceId: string, limit: number, startingAfter?: string) => store.webhooks.list(workspaceId, limit, startingAfter),
    async remove(workspaceId: string, id: string): Promise<void> {
      if (!(await store.webhooks.remove(workspaceId, id))) throw notFound(`No such webhook ${id}.`);
    },
    async deliveries(workspaceId: string, id: string, limit: number, startingAfter?: string) {
      if (!(await store.webhooks.get(workspaceId, id))) throw notFound(`No such webhook ${id}.`);
      return store.webhooks.listDeliveries(id, limit, startingAfter);
    },
    /** Queues the event of a finished extraction for the workspace's webhooks, in the transaction that finished it; resolves with the deliveries queued. */
    async announce(trx: Knex.Transaction, record: ExtractionRecord): Promise<number> {
      const type = EVENT_OF[record.status];
      if (!type) return 0;
      const now = Date.now();
      const event: WebhookEvent = { id: newId('evt'), type, created_at: new Date(now).toISOString(), data: { extraction: toExtraction(record) } };
      return store.webhooks.publish(trx, record.workspace_id, { id: event.id, type, payload: JSON.stringify(event) }, () => newId('dlv'), now);
    },
  };
}

export type WebhookService = ReturnType<typeof webhookService>;
