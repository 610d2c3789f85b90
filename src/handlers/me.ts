import type { Context as Ctx } from 'koa';
import type { components } from '../../generated/openapi.js';

type Me = components['schemas']['Me'];

export function meHandlers() {
  return {
    async getMe(_c: unknown, ctx: Ctx) {
      const { key, workspace, limits } = ctx.state.principal!;
      const body: Me = {
        api_key: { id: key.id, name: key.name, prefix: key.prefix, scopes: key.scopes, workspace_id: key.workspace_id },
        workspace: { id: workspace.id, name: workspace.name, plan: workspace.plan, limits },
        request_id: ctx.state.requestId,
      };
      ctx.body = body;
    },
  };
}
