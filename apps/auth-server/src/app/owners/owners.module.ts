import { Module } from '@nestjs/common';
import { OwnersRepository } from './owners.repository';
import { OwnersService } from './owners.service';
import { LoginThrottle } from './login-throttle';
import { OwnerAccess } from './owner-access';
import { RevocationList } from '../oidc/revocation-list';

// RevocationList is stateless (Redis and config only): the create-owner command, which has no provider, ends grants too.
@Module({ providers: [OwnersRepository, OwnersService, LoginThrottle, OwnerAccess, RevocationList], exports: [OwnersService, OwnerAccess] })
export class OwnersModule {}
