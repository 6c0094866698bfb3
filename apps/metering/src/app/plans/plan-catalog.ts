import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '@adintel/config';
import { ServiceError } from '@adintel/contracts';
import { TRIAL_PLAN, type AppConfig, type Plan } from '../../config';

/** The period of a plan that contains a moment: `life` for lifetime plans, the UTC calendar month otherwise. */
export interface PlanPeriod {
  readonly key: string;
  readonly start: Date | null;
  readonly end: Date | null;
}

/** The plans of PLANS, and the period each one is counted in. */
@Injectable()
export class PlanCatalog {
  constructor(@Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'PLANS'>) {}

  get ids(): string[] {
    return Object.keys(this.config.PLANS);
  }

  get trialId(): string {
    return TRIAL_PLAN;
  }

  has(planId: string): boolean {
    return Object.hasOwn(this.config.PLANS, planId);
  }

  /** A plan an account is stored on; one that was removed from PLANS is an operator error, not the caller's. */
  get(planId: string): Plan {
    if (!this.has(planId)) throw ServiceError.of('internal', `plan "${planId}" is not configured in PLANS`);
    return this.config.PLANS[planId];
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
}
