import type { Middleware } from 'koa';
import { newId } from '../ids.js';

/** Gives every request an id, set before anything can fail so that every response carries it. */
export const requestId: Middleware = async (ctx, next) => {
  ctx.state.requestId = newId('req');
  ctx.set('X-Request-Id', ctx.state.requestId);
  await next();
};
