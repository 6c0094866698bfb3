import { Module } from '@nestjs/common';
import { MeteringModule } from '../metering/metering.module';
import { OidcModule } from '../oidc/oidc.module';
import { OwnersModule } from '../owners/owners.module';
import { InteractionController } from './interaction.controller';
import { InteractionService } from './interaction.service';

@Module({ imports: [OidcModule, OwnersModule, MeteringModule], controllers: [InteractionController], providers: [InteractionService] })
export class InteractionModule {}
