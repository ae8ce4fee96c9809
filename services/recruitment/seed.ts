import { randomUUID } from 'node:crypto';
import { candidateEtag, createCandidate, moveCandidate, postMessage, type RecruitmentPorts } from './domain';
import { getCandidate, recruitmentStore } from './store';
import type { Db } from '../shared/ddb/client';
import type { DemoSeed } from '../shared/seed';
import { inUnitOfWork } from '../shared/ddb/unit-of-work';
import type { SystemActor } from '../shared/domain/actor';

/** The demo candidates: fixed ids, so that a restart finds them and adds nothing. */
export const DEMO_CANDIDATE_IDS = ['7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c01', '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c02'] as const;

/**
 * Two candidates of the demo organization, written through the recruitment use cases (audit
 * entries included): one just APPLIED with a first message, one in OFFER, ready to be hired.
 */
export async function seedRecruitment(db: Db, organizationId: string): Promise<void> {
  const actor: SystemActor = { system: 'Demo seed', organizationId, requestId: randomUUID() };
  const run = <T>(work: (ports: RecruitmentPorts) => Promise<T>, firstId?: string) =>
    inUnitOfWork(db, (unit) => {
      const ids = firstId ? [firstId] : [];
      return work({ store: recruitmentStore(db, unit), now: () => new Date(), newId: () => ids.shift() ?? randomUUID() });
    });
  const [applied, offered] = DEMO_CANDIDATE_IDS;
  if (!(await getCandidate(db, organizationId, applied))) {
    await run((p) => createCandidate(p, actor, { givenName: 'Farah', familyName: 'Haddad', email: 'farah.haddad@candidates.example', phone: '+49 40 5550101', position: 'Office cleaner', source: 'Job board' }), applied);
    await run((p) => postMessage(p, actor, applied, { direction: 'OUTBOUND', channel: 'EMAIL', subject: 'Your application', body: 'Thank you for applying; we will call you this week.' }));
  }
  if (!(await getCandidate(db, organizationId, offered))) {
    const created = await run((p) => createCandidate(p, actor, { givenName: 'Jonas', familyName: 'Berger', email: 'jonas.berger@candidates.example', position: 'Maintenance technician', source: 'Referral' }), offered);
    await run((p) => moveCandidate(p, actor, offered, candidateEtag(created), 'OFFER'));
  }
}

/** The registry's demo seed of recruitment. */
export const seed: DemoSeed = (c) => seedRecruitment(c.db, c.organizationId);
