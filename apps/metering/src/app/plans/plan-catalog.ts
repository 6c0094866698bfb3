import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '@adintel/config';
import { ServiceError } from '@adintel/contracts';
import type { AppConfig, Plan } from '../../config';

/** The period of a plan that contains a moment: `life` for lifetime plans, the UTC calendar month otherwise. */
export interface PlanPeriod {
  readonly key: string;
  readonly start: Date | null;
  readonly end: Date | null;
}

/** The plans of PLANS, and the period each one is counted in. */
@Injectable()
export class PlanCatalog {
  /** `scriptTerms` of the month it was last asked for (a number, year * 12 + month). */
  private terms: { readonly month: number; readonly args: readonly (string | number)[] } | undefined;

  constructor(@Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'PLANS'>) {}

  get ids(): string[] {
    return Object.keys(this.config.PLANS);
  }

  has(planId: string): boolean {
    return Object.hasOwn(this.config.PLANS, planId);
  }

  /** A plan an account is stored on; one that was removed from PLANS is an operator error, not the caller's. */
  get(planId: string): Plan {
    const plan = this.has(planId) ? this.config.PLANS[planId] : undefined;
    if (!plan) throw this.notConfigured(planId);
    return plan;
  }

  notConfigured(planId: string): ServiceError {
    return ServiceError.of('internal', `plan "${planId}" is not configured in PLANS`);
  }

  periodOf(plan: Plan, now: Date): PlanPeriod {
    if (plan.period === 'lifetime') return { key: 'life', start: null, end: null };
    const year = now.getUTCFullYear();
    const month = now.getUTCMonth();
    return {
      key: `${year}-${String(month + 1).padStart(2, '0')}`,
      start: new Date(Date.UTC(year, month, 1)),
      end: new Date(Date.UTC(year, month + 1, 1)),
    };
  }

  /**
   * Every plan as the scripts take it (they pick the paying pool inside Redis): id, allowance and the key of its
   * period at `now`, flat. On every paid call's path, so it is built once per month.
   */
  scriptTerms(now: Date): readonly (string | number)[] {
    const month = now.getUTCFullYear() * 12 + now.getUTCMonth();
    if (this.terms?.month !== month) {
      const args = Object.entries(this.config.PLANS).flatMap(([id, plan]) => [id, plan.allowance, this.periodOf(plan, now).key]);
      this.terms = { month, args };
    }
    return this.terms.args;
  }
}
