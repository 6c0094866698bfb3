import { Inject } from '@nestjs/common';

export const OIDC_PROVIDER = Symbol('OIDC_PROVIDER');
export const KEY_MATERIAL = Symbol('KEY_MATERIAL');
export const InjectOidcProvider = () => Inject(OIDC_PROVIDER);
