import { PlanCatalog } from '../../../src/app/plans/plan-catalog';

describe('PlanCatalog.scriptTerms (the plans as the scripts take them)', () => {
  const plans = new PlanCatalog({
    PLANS: { trial: { allowance: 500, period: 'lifetime' }, pro: { allowance: 40_000, period: 'month' } },
  });

  it('gives every plan as id, allowance and the key of its period at that moment', () => {
    expect(plans.scriptTerms(new Date('2026-03-15T12:00:00.000Z'))).toEqual(['trial', 500, 'life', 'pro', 40_000, '2026-03']);
  });

  it('moves to the next month on its first millisecond (UTC), across a year too, and back when asked for an earlier moment', () => {
    expect(plans.scriptTerms(new Date('2026-12-31T23:59:59.999Z'))).toEqual(['trial', 500, 'life', 'pro', 40_000, '2026-12']);
    expect(plans.scriptTerms(new Date('2027-01-01T00:00:00.000Z'))).toEqual(['trial', 500, 'life', 'pro', 40_000, '2027-01']);
    expect(plans.scriptTerms(new Date('2026-12-31T23:59:59.999Z'))).toEqual(['trial', 500, 'life', 'pro', 40_000, '2026-12']);
  });

  it('agrees with periodOf, the source of the period keys', () => {
    const now = new Date('2026-02-28T08:00:00.000Z');
    const terms = plans.scriptTerms(now);
    expect(terms[5]).toBe(plans.periodOf(plans.get('pro'), now).key);
    expect(terms[2]).toBe(plans.periodOf(plans.get('trial'), now).key);
  });
});
