import type { Context as Ctx } from 'koa';
import type { OperationInput } from '../http/dispatch.js';
import type { components } from '../../generated/openapi.js';
import type { TemplateService } from '../services/templates.js';
import { cursor, pageSize } from './pagination.js';

type TemplateList = components['schemas']['TemplateList'];

export function templateHandlers(templates: TemplateService) {
  const workspace = (ctx: Ctx) => ctx.state.principal!.workspace.id;
  return {
    async createTemplate(c: OperationInput, ctx: Ctx) {
      const template = await templates.create(workspace(ctx), c.requestBody);
      ctx.status = 201;
      ctx.set('Location', `/v1/templates/${template.id}`);
      ctx.body = template;
    },
    async listTemplates(c: OperationInput, ctx: Ctx) {
      const page = await templates.list(workspace(ctx), pageSize(c.query), cursor(c.query));
      const body: TemplateList = { object: 'list', ...page };
      ctx.body = body;
    },
    async getTemplate(c: OperationInput, ctx: Ctx) {
      ctx.body = await templates.get(workspace(ctx), String(c.params.id));
    },
    async updateTemplate(c: OperationInput, ctx: Ctx) {
      ctx.body = await templates.update(workspace(ctx), String(c.params.id), c.requestBody);
    },
    async deleteTemplate(c: OperationInput, ctx: Ctx) {
      await templates.remove(workspace(ctx), String(c.params.id));
      ctx.status = 204;
    },
  };
}
