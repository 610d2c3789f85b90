import type { Knex } from 'knex';
import type { Db } from './db.js';
import type { components } from '../../generated/openapi.js';

export type WebhookEventType = components['schemas']['WebhookEventType'];
export type Webhook = components['schemas']['Webhook'];
export type WebhookDelivery = components['schemas']['WebhookDelivery'];
type DeliveryAttempt = components['schemas']['WebhookDeliveryAttempt'];

interface WebhookRow {
  id: string;
  workspace_id: string;
  url: string;
  events: string;
  secret: string;
  created_at: string;
  deleted_at: string | null;
}

interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: WebhookEventType;
  payload: string;
  state: WebhookDelivery['status'];
  attempts: string;
  next_attempt_at: number | string | null;
  /** Epoch ms until which a process holds it (sending); null when nobody does. */
  claimed_until: number | string | null;
  created_at: string;
  completed_at: string | null;
}

/** A delivery to send: the webhook's URL and secret, and the event as signed. */
export interface DueDelivery {
  id: string;
  url: string;
  secret: string;
  payload: string;
  attempts: DeliveryAttempt[];
  created_at: string;
}

const toWebhook = (r: WebhookRow): Webhook => ({ id: r.id, object: 'webhook', url: r.url, events: JSON.parse(r.events) as WebhookEventType[], created_at: r.created_at });

const toDelivery = (r: DeliveryRow): WebhookDelivery => ({
  id: r.id,
  object: 'webhook_delivery',
  webhook_id: r.webhook_id,
  event_id: r.event_id,
  event_type: r.event_type,
  status: r.state,
  attempts: JSON.parse(r.attempts) as DeliveryAttempt[],
  next_attempt_at: r.next_attempt_at === null ? null : new Date(Number(r.next_attempt_at)).toISOString(),
  created_at: r.created_at,
  completed_at: r.completed_at,
});

export function webhooksRepository(db: Db) {
  const hooks = () => db<WebhookRow>('webhooks');
  const deliveries = () => db<DeliveryRow>('webhook_deliveries');
  return {
    async create(input: Omit<WebhookRow, 'events' | 'created_at' | 'deleted_at'> & { events: WebhookEventType[] }): Promise<Webhook> {
      const row: WebhookRow = { ...input, events: JSON.stringify(input.events), created_at: new Date().toISOString(), deleted_at: null };
      await hooks().insert(row);
      return toWebhook(row);
    },
    async get(workspace_id: string, id: string): Promise<Webhook | undefined> {
      const row = await hooks().where({ workspace_id, id }).whereNull('deleted_at').first();
      return row && toWebhook(row);
    },
    async list(workspace_id: string, limit: number, startingAfter?: string): Promise<{ data: Webhook[]; has_more: boolean }> {
      const q = hooks().where({ workspace_id }).whereNull('deleted_at').orderBy('id', 'desc').limit(limit + 1);
      if (startingAfter) q.andWhere('id', '<', startingAfter);
      const rows = await q;
      return { data: rows.slice(0, limit).map(toWebhook), has_more: rows.length > limit };
    },
    /** Deletes a webhook; its pending deliveries are dropped with it. Returns false when there was none. */
    async remove(workspace_id: string, id: string): Promise<boolean> {
      const now = new Date().toISOString();
      const removed = await hooks().where({ workspace_id, id }).whereNull('deleted_at').update({ deleted_at: now });
      if (removed) await deliveries().where({ webhook_id: id, state: 'pending' }).update({ state: 'failed', next_attempt_at: null, completed_at: now });
      return removed > 0;
    },
    /**
     * Queues one delivery of the event to every webhook of the workspace that listens to its type, in
     * the transaction that finished the extraction, so that an event is announced exactly when it happened.
     */
    async publish(trx: Knex.Transaction, workspace_id: string, event: { id: string; type: WebhookEventType; payload: string }, newDeliveryId: () => string, now: number): Promise<number> {
      const targets = (await trx<WebhookRow>('webhooks').where({ workspace_id }).whereNull('deleted_at')).filter((w) =>
        (JSON.parse(w.events) as string[]).includes(event.type),
      );
      if (!targets.length) return 0;
      const createdAt = new Date(now).toISOString();
      await trx<DeliveryRow>('webhook_deliveries').insert(
        targets.map((w) => ({
          id: newDeliveryId(),
          webhook_id: w.id,
          event_id: event.id,
          event_type: event.type,
          payload: event.payload,
          state: 'pending' as const,
          attempts: '[]',
          next_attempt_at: now,
          claimed_until: null,
          created_at: createdAt,
          completed_at: null,
        })),
      );
      return targets.length;
    },
    /** Takes up to `limit` due deliveries for `holdMs`, so that no other process sends them meanwhile. */
    async claimDue(now: number, holdMs: number, limit: number): Promise<DueDelivery[]> {
      const due = await deliveries()
        .select('id', 'claimed_until')
        .where({ state: 'pending' })
        .andWhere('next_attempt_at', '<=', now)
        .andWhere((q) => q.whereNull('claimed_until').orWhere('claimed_until', '<', now))
        .orderBy('next_attempt_at')
        .limit(limit);
      const claimed: DueDelivery[] = [];
      for (const candidate of due) {
        const taken = await deliveries()
          .where({ id: candidate.id, state: 'pending' })
          .andWhere((q) => (candidate.claimed_until === null ? q.whereNull('claimed_until') : q.where('claimed_until', candidate.claimed_until)))
          .update({ claimed_until: now + holdMs });
        if (!taken) continue;
        const row = await deliveries().join('webhooks', 'webhooks.id', 'webhook_deliveries.webhook_id').where('webhook_deliveries.id', candidate.id).first<DeliveryRow & { url: string; secret: string }>('webhook_deliveries.*', 'webhooks.url', 'webhooks.secret');
        if (row) claimed.push({ id: row.id, url: row.url, secret: row.secret, payload: row.payload, attempts: JSON.parse(row.attempts) as DeliveryAttempt[], created_at: row.created_at });
      }
      return claimed;
    },
    /** Records an attempt: `nextAttemptAt` null means no further attempt (`succeeded`, or `failed` for good). */
    async recordAttempt(id: string, attempts: DeliveryAttempt[], outcome: { state: WebhookDelivery['status']; nextAttemptAt: number | null }): Promise<void> {
      await deliveries()
        .where({ id, state: 'pending' })
        .update({
          attempts: JSON.stringify(attempts),
          state: outcome.state,
          next_attempt_at: outcome.nextAttemptAt,
          claimed_until: null,
          completed_at: outcome.state === 'pending' ? null : new Date().toISOString(),
        });
    },
    async listDeliveries(webhook_id: string, limit: number, startingAfter?: string): Promise<{ data: WebhookDelivery[]; has_more: boolean }> {
      const q = deliveries().where({ webhook_id }).orderBy('id', 'desc').limit(limit + 1);
      if (startingAfter) q.andWhere('id', '<', startingAfter);
      const rows = await q;
      return { data: rows.slice(0, limit).map(toDelivery), has_more: rows.length > limit };
    },
  };
}

export type WebhooksRepository = ReturnType<typeof webhooksRepository>;
