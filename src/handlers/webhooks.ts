import type { Context as Ctx } from 'koa';
import type { OperationInput } from '../http/dispatch.js';
import type { components } from '../../generated/openapi.js';
import type { WebhookService } from '../services/webhooks.js';
import { cursor, pageSize } from './pagination.js';

type WebhookList = components['schemas']['WebhookList'];
type WebhookDeliveryList = components['schemas']['WebhookDeliveryList'];

export function webhookHandlers(webhooks: WebhookService) {
  const workspace = (ctx: Ctx) => ctx.state.principal!.workspace.id;
  return {
    async createWebhook(c: OperationInput, ctx: Ctx) {
      const webhook = await webhooks.create(workspace(ctx), c.requestBody);
      ctx.status = 201;
      ctx.set('Location', `/v1/webhooks/${webhook.id}`);
      ctx.body = webhook;
    },
    async listWebhooks(c: OperationInput, ctx: Ctx) {
      const body: WebhookList = { object: 'list', ...(await webhooks.list(workspace(ctx), pageSize(c.query), cursor(c.query))) };
      ctx.body = body;
    },
    async deleteWebhook(c: OperationInput, ctx: Ctx) {
      await webhooks.remove(workspace(ctx), String(c.params.id));
      ctx.status = 204;
    },
    async listWebhookDeliveries(c: OperationInput, ctx: Ctx) {
      const page = await webhooks.deliveries(workspace(ctx), String(c.params.id), pageSize(c.query), cursor(c.query));
      const body: WebhookDeliveryList = { object: 'list', ...page };
      ctx.body = body;
    },
  };
}
