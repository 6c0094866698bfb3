import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import type Provider from 'oidc-provider';
import type { InteractionResults } from 'oidc-provider';
import { APP_CONFIG } from '@adintel/config';
import type { AppConfig } from '../../config';
import { MeteringGateway } from '../metering/metering.gateway';
import { OwnersService } from '../owners/owners.service';
import { InjectOidcProvider, KEY_MATERIAL } from '../oidc/oidc.module';
import type { KeyMaterial } from '../keys/key-material';
import { SUPPORTED_SCOPES } from '../oidc/registration-policy';
import { FormTokens } from '../web/form-tokens';

export type InteractionDetails = Awaited<ReturnType<Provider['interactionDetails']>>;

export interface InteractionView {
  readonly uid: string;
  readonly prompt: 'login' | 'consent';
  readonly clientId: string;
  readonly clientName: string;
  readonly scopes: string[];
  /** Where the code goes (the request's redirect_uri): the name is the client's own choice, this is not. */
  readonly redirectUri: string;
  readonly csrf: string;
}

/** The owner-facing steps of the authorization-code flow: sign in, then consent. */
@Injectable()
export class InteractionService {
  private readonly logger = new Logger(InteractionService.name);
  readonly formTokens: FormTokens;

  constructor(
    @InjectOidcProvider() private readonly provider: Provider,
    @Inject(KEY_MATERIAL) keys: KeyMaterial,
    @Inject(APP_CONFIG) readonly config: AppConfig,
    private readonly owners: OwnersService,
    private readonly metering: MeteringGateway,
  ) {
    this.formTokens = new FormTokens(keys.cookieKeys);
  }

  /** Throws the provider's SessionNotFound when the interaction expired or its cookie is missing. */
  details(req: Request, res: Response): Promise<InteractionDetails> {
    return this.provider.interactionDetails(req, res);
  }

  async view(details: InteractionDetails): Promise<InteractionView> {
    const clientId = String(details.params['client_id']);
    const client = await this.provider.Client.find(clientId);
    return {
      uid: details.uid,
      prompt: details.prompt.name === 'login' ? 'login' : 'consent',
      clientId,
      clientName: client?.clientName ?? clientId,
      redirectUri: String(details.params['redirect_uri'] ?? ''),
      scopes: String(details.params['scope'] ?? '')
        .split(' ')
        .filter(Boolean),
      csrf: this.formTokens.issue(`interaction:${details.uid}`),
    };
  }

  /** Scopes nobody here can grant: the request ends with invalid_scope rather than silently losing them. */
  unknownScopes(details: InteractionDetails): string[] {
    return String(details.params['scope'] ?? '')
      .split(' ')
      .filter((s) => s && !(SUPPORTED_SCOPES as readonly string[]).includes(s));
  }

  validForm(uid: string, csrf: unknown): boolean {
    return this.formTokens.verify(`interaction:${uid}`, csrf);
  }

  async authenticate(email: string, password: string, ip: string) {
    const owner = await this.owners.authenticate(email, password, ip);
    // Metering learns the owner's plan now, not at the first /account visit: the owner's own calls draw from the
    // plan from the first one (an owner metering does not know would be metered as a trial). Best effort, not awaited:
    // sign-in does not wait on metering, and the code exchange that follows takes longer than this message.
    if (owner) {
      this.metering.upsertOwner(owner.owner_id, owner.plan).catch((error: unknown) => this.logger.warn(`metering did not record ${owner.owner_id}: ${(error as Error).message}`));
    }
    return owner;
  }

  finish(req: Request, res: Response, result: InteractionResults, merge: boolean): Promise<void> {
    return this.provider.interactionFinished(req, res, result, { mergeWithLastSubmission: merge });
  }

  /** Grants what the consent prompt found missing (scopes of the MCP resource, OpenID scopes) and returns the grant id. */
  async grantConsent(details: InteractionDetails): Promise<InteractionResults> {
    const accountId = details.session?.accountId;
    const clientId = String(details.params['client_id']);
    const grant = details.grantId
      ? await this.provider.Grant.find(details.grantId)
      : new this.provider.Grant({ accountId, clientId });
    if (!grant) throw new Error('the grant of this interaction vanished');
    const missing = details.prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (missing.missingOIDCScope?.length) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims?.length) grant.addOIDCClaims(missing.missingOIDCClaims);
    for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
      grant.addResourceScope(resource, scopes.join(' '));
    }
    const grantId = await grant.save();
    return { consent: details.grantId ? {} : { grantId } };
  }
}
