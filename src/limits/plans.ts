import type { components } from '../../generated/openapi.js';

export type Plan = components['schemas']['Plan'];
export interface Limits {
  per_minute: number;
  per_day: number;
}

export const PLANS: readonly Plan[] = ['free', 'basic', 'pro', 'business', 'enterprise'];

const PLAN_LIMITS: Record<Exclude<Plan, 'enterprise'>, Limits> = {
  free: { per_minute: 10, per_day: 25 },
  basic: { per_minute: 30, per_day: 500 },
  pro: { per_minute: 60, per_day: 2000 },
  business: { per_minute: 120, per_day: 10000 },
};

/** Limits in force for a workspace: custom numbers win (enterprise must have them), else the plan's. */
export function limitsFor(plan: Plan, custom: { per_minute: number | null; per_day: number | null }): Limits {
  const base = plan === 'enterprise' ? null : PLAN_LIMITS[plan];
  const per_minute = custom.per_minute ?? base?.per_minute;
  const per_day = custom.per_day ?? base?.per_day;
  if (per_minute === undefined || per_day === undefined) {
    throw new Error(`workspace on plan ${plan} has no limits set`);
  }
  return { per_minute, per_day };
}

export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value);
}
