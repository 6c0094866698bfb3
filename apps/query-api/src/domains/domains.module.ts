import { Module } from '@nestjs/common';
import { StoreModule } from '../store/store.module';
import { DomainsController } from './domains.controller';
import { DomainsService } from './domains.service';

@Module({ imports: [StoreModule], controllers: [DomainsController], providers: [DomainsService] })
export class DomainsModule {}
