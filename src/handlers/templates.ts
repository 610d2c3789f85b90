import type { Context as Ctx } from 'koa';
import type { Context } from 'openapi-backend';
import type { components } from '../../generated/openapi.js';
import type { TemplateService } from '../services/templates.js';
import { cursor, pageSize } from './pagination.js';

type TemplateList = components['schemas']['TemplateList'];

export function templateHandlers(templates: TemplateService) {
  const workspace = (ctx: Ctx) => ctx.state.principal!.workspace.id;
  return {
    async createTemplate(c: Context, ctx: Ctx) {
      const template = await templates.create(workspace(ctx), c.request.requestBody);
      ctx.status = 201;
      ctx.set('Location', `/v1/templates/${template.id}`);
      ctx.body = template;
    },
    async listTemplates(c: Context, ctx: Ctx) {
      const page = await templates.list(workspace(ctx), pageSize(c.request.query), cursor(c.request.query));
      const body: TemplateList = { object: 'list', ...page };
      ctx.body = body;
    },
    async getTemplate(c: Context, ctx: Ctx) {
      ctx.body = await templates.get(workspace(ctx), String(c.request.params.id));
    },
    async updateTemplate(c: Context, ctx: Ctx) {
      ctx.body = await templates.update(workspace(ctx), String(c.request.params.id), c.request.requestBody);
    },
    async deleteTemplate(c: Context, ctx: Ctx) {
      await templates.remove(workspace(ctx), String(c.request.params.id));
      ctx.status = 204;
    },
  };
}
