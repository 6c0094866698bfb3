import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { APP_CONFIG } from '@adintel/config';
import { AppMetrics } from '@adintel/observability';
import type { AppConfig } from '../../config';
import { HashSlots } from './hash-slots';
import { OwnerAccess } from './owner-access';
import { decoyHash, hashPassword, verifyPassword } from './password-hasher';
import { OwnersRepository, type OwnerRecord } from './owners.repository';
import { LoginThrottle } from './login-throttle';

const OWNER_ID_PREFIX = 'own_';
const MIN_PASSWORD_LENGTH = 12;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export class OwnerInputError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** Owner accounts: created by an operator, signed in with email + password. No public sign-up. */
@Injectable()
export class OwnersService {
  private readonly hashes: HashSlots;

  constructor(
    private readonly owners: OwnersRepository,
    private readonly throttle: LoginThrottle,
    private readonly access: OwnerAccess,
    @Inject(APP_CONFIG) config: AppConfig,
    // Absent in the create-owner command, which never signs anyone in.
    @Optional() metrics?: AppMetrics,
  ) {
    this.hashes = new HashSlots({ running: config.LOGIN_HASHES_AT_ONCE, waiting: config.LOGIN_HASHES_WAITING }, () =>
      metrics?.recordLimitRefusal('login_hashes_busy'),
    );
  }

  /** Creates the owner, or updates password and plan of the owner with that email. */
  async createOrUpdate(input: { email: string; password: string; plan: string }): Promise<{ owner: OwnerRecord; created: boolean }> {
    const email = normalizeEmail(input.email);
    if (!EMAIL.test(email) || email.length > 254) throw new OwnerInputError('email', 'must be an email address');
    if (input.password.length < MIN_PASSWORD_LENGTH) {
      throw new OwnerInputError('password', `must have at least ${MIN_PASSWORD_LENGTH} characters`);
    }
    if (!/^[a-z][a-z0-9_-]{0,31}$/.test(input.plan)) throw new OwnerInputError('plan', 'must be a plan id such as pro');
    const now = new Date().toISOString();
    const password_hash = await hashPassword(input.password);
    const existing = await this.owners.findByEmail(email);
    if (existing) {
      await this.owners.update(existing.owner_id, { password_hash, plan: input.plan, updated_at: now });
      // A password set anew: whoever knew the old one keeps nothing it opened (sessions, approved applications).
      await this.access.endAll(existing.owner_id);
      return { owner: { ...existing, password_hash, plan: input.plan, updated_at: now }, created: false };
    }
    const owner: OwnerRecord = {
      owner_id: `${OWNER_ID_PREFIX}${randomBytes(12).toString('base64url')}`,
      email,
      password_hash,
      plan: input.plan,
      created_at: now,
      updated_at: now,
    };
    if (!(await this.owners.create(owner))) return this.createOrUpdate(input); // lost a race for the email: update instead
    return { owner, created: true };
  }

  /** Creates the owner unless one has that email already, which is left as it is. */
  async createIfAbsent(input: { email: string; password: string; plan: string }): Promise<{ owner: OwnerRecord; created: boolean }> {
    const existing = await this.owners.findByEmail(normalizeEmail(input.email));
    return existing ? { owner: existing, created: false } : this.createOrUpdate(input);
  }

  /**
   * The owner for these credentials, or undefined; unknown emails cost the same time as wrong passwords.
   * Throws LoginThrottledError while this address has too many recent failures, for this email or in all.
   */
  async authenticate(email: string, password: string, ip: string): Promise<OwnerRecord | undefined> {
    const normalized = normalizeEmail(email);
    await this.throttle.attempt(normalized, ip);
    const owner = await this.owners.findByEmail(normalized);
    const valid = await this.hashes.run(async () => verifyPassword(password, owner?.password_hash ?? (await decoyHash())));
    if (!owner || !valid) return undefined;
    await this.throttle.succeeded(normalized, ip);
    return owner;
  }

  findById(ownerId: string): Promise<OwnerRecord | undefined> {
    return ownerId.startsWith(OWNER_ID_PREFIX) ? this.owners.findById(ownerId) : Promise.resolve(undefined);
  }
}
